public import Foundation

/// What a store's staff member does there.
public enum StaffRole: String, Hashable, Sendable, Codable, CaseIterable {
    case cashier, barista, server, kitchen, other
}

/// Someone who signs in: platform admins, store owners, managers and staff, couriers, customers.
public struct User: Hashable, Sendable, Codable {
    public var id: UserID
    /// Lower-cased; unique.
    public var email: String
    public var name: String
    public var phone: String?
    public var role: Role
    /// Set exactly for store roles.
    public var storeID: StoreID?
    public var staffRole: StaffRole?
    public var active: Bool
    /// Whether a courier is taking deliveries now; false for every other role.
    public var onDuty: Bool
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    /// Whether a store user has a shift open, and since when: the payments service's, set on
    /// the copy a reader receives, never stored.
    public var isClockedIn: Bool?
    public var clockedInAt: Date?

    public init(
        id: UserID, email: String, name: String, phone: String?, role: Role, storeID: StoreID?,
        staffRole: StaffRole?, active: Bool, onDuty: Bool, version: Int64, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.phone = phone
        self.role = role
        self.storeID = storeID
        self.staffRole = staffRole
        self.active = active
        self.onDuty = onDuty
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, email, name, phone, role, active, version
        case isClockedIn = "is_clocked_in"
        case clockedInAt = "clocked_in_at"
        case storeID = "store_id"
        case staffRole = "staff_role"
        case onDuty = "on_duty"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// The principal this user acts as, on duty or not.
    public var principal: Principal { Principal(userID: id, role: role, storeID: storeID, onDuty: onDuty) }

    /// Whether `text` looks like an e-mail address: one `@`, something on each side, a dot in
    /// the domain, no spaces.
    public static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), text.count <= 254
        else { return false }
        return !text.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 }
    }
}
