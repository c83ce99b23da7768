/// Who is making a request: travels with every Wire call so that each service decides, through
/// `AccessPolicy`, what the caller may see and change.
public struct Principal: Hashable, Sendable, Codable {
    public var userID: UserID
    public var role: Role
    /// The caller's store; set exactly for store roles.
    public var storeID: StoreID?
    /// Whether a courier is taking deliveries at the time of the call (stated by the gateway,
    /// which owns it); false for every other role.
    public var onDuty: Bool

    public init(userID: UserID, role: Role, storeID: StoreID?, onDuty: Bool = false) {
        self.userID = userID
        self.role = role
        self.storeID = storeID
        self.onDuty = onDuty
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case role
        case storeID = "store_id"
        case onDuty = "on_duty"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            userID: try container.decode(UserID.self, forKey: .userID),
            role: try container.decode(Role.self, forKey: .role),
            storeID: try container.decodeIfPresent(StoreID.self, forKey: .storeID),
            onDuty: try container.decodeIfPresent(Bool.self, forKey: .onDuty) ?? false)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userID, forKey: .userID)
        try container.encode(role, forKey: .role)
        try container.encodeIfPresent(storeID, forKey: .storeID)
        if onDuty { try container.encode(true, forKey: .onDuty) }
    }
}
