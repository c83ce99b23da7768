/// What a user is allowed to be on the platform.
public enum Role: String, Hashable, Sendable, Codable, CaseIterable {
    /// The platform's operators: every store, every action.
    case admin
    /// A store's owner.
    case owner
    /// A store's manager.
    case manager
    /// A store's staff member (cashier, kitchen, …).
    case staff
    /// One of the platform's couriers; belongs to no store.
    case courier
    /// A customer placing or following orders.
    case customer

    /// Whether users of this role belong to exactly one store.
    public var isStoreRole: Bool {
        switch self {
        case .owner, .manager, .staff: return true
        case .admin, .courier, .customer: return false
        }
    }
}

/// Who is making a request: travels with every Wire call so each service can check store scope.
public struct Principal: Hashable, Sendable, Codable {
    public var userID: UserID
    public var role: Role
    /// The caller's store; set exactly for store roles.
    public var storeID: StoreID?

    public init(userID: UserID, role: Role, storeID: StoreID?) {
        self.userID = userID
        self.role = role
        self.storeID = storeID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case role
        case storeID = "store_id"
    }

    /// Whether this caller may read or change data that belongs to `store`.
    public func canAccess(store: StoreID) -> Bool {
        switch role {
        case .admin: return true
        case .owner, .manager, .staff: return storeID == store
        case .courier, .customer: return false
        }
    }
}
