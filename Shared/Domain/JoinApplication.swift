public import Foundation

/// A restaurant's or a courier's request to join the platform, made without an account: the
/// applicant's own details and the password they chose (kept as a hash beside it, never in
/// it), the store's details or the vehicle, and what the platform decided. Approving a store's
/// opens the store (with the id chosen when it was made, so a retried approval opens it once)
/// and its owner; a courier's, the courier. Until then the applicant cannot sign in.
public struct JoinApplication: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        case store, courier
    }

    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        case pending, approved, rejected
    }

    /// The store a restaurant applies to open.
    public struct StoreDetails: Hashable, Sendable, Codable {
        public var name: String
        public var address: String
        public var phone: String?
        public var cuisine: String?
        public var timezone: String?

        public init(name: String, address: String, phone: String?, cuisine: String?, timezone: String?) {
            self.name = name
            self.address = address
            self.phone = phone
            self.cuisine = cuisine
            self.timezone = timezone
        }
    }

    public var id: ApplicationID
    public var kind: Kind
    public var status: Status
    public var name: String
    /// Lower-cased.
    public var email: String
    public var phone: String
    public var locale: String
    public var store: StoreDetails?
    public var vehicle: String?
    /// Whether the applicant showed the address is theirs, by the link mailed to it; approval
    /// waits for it.
    public var emailVerified: Bool
    /// The store a store's application opens, once approved; chosen when it is made.
    public var storeID: StoreID?
    /// The account approval made.
    public var userID: UserID?
    /// Why it was rejected.
    public var reason: String?
    public var decidedBy: UserID?
    public var decidedAt: Date?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: ApplicationID, kind: Kind, name: String, email: String, phone: String, locale: String,
        store: StoreDetails?, vehicle: String?, createdAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.status = .pending
        self.name = name
        self.email = email
        self.phone = phone
        self.locale = locale
        self.store = store
        self.vehicle = vehicle
        self.emailVerified = false
        self.storeID = kind == .store ? StoreID() : nil
        self.version = 1
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    /// Records the platform's decision at `now`; an application decided already is refused
    /// (422 `application_decided`).
    public mutating func decide(_ status: Status, by user: UserID, reason: String? = nil, at now: Date)
        throws(OrderlyError)
    {
        try checkPending()
        self.status = status
        self.reason = reason
        decidedBy = user
        decidedAt = now
        version += 1
        updatedAt = now
    }

    /// Refuses an application decided already (422 `application_decided`).
    public func checkPending() throws(OrderlyError) {
        guard status == .pending else {
            throw OrderlyError(
                .applicationDecided, "the application was \(status.rawValue) already",
                details: ["status": .string(status.rawValue)])
        }
    }

    /// The role approval gives the applicant.
    public var role: Role { kind == .store ? .owner : .courier }

    enum CodingKeys: String, CodingKey {
        case id, kind, status, name, email, phone, locale, store, vehicle, reason, version
        case storeID = "store_id"
        case userID = "user_id"
        case emailVerified = "email_verified"
        case decidedBy = "decided_by"
        case decidedAt = "decided_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
