public import Foundation

/// What a store's staff member does there.
public enum StaffRole: String, Hashable, Sendable, Codable, CaseIterable {
    case cashier, barista, server, kitchen, other
}

/// Someone who signs in: platform admins, store owners, managers and staff, couriers, customers.
public struct User: Hashable, Sendable, Codable {
    public var id: UserID
    /// Lower-cased; unique. Nil for a store's staff member with no address of their own, who
    /// signs in on the store's tills with a PIN alone (`UserDraft`).
    public var email: String?
    public var name: String
    public var phone: String?
    /// An http or https address of their picture, for the screens that show colleagues.
    public var photoURL: String?
    public var role: Role
    /// Set exactly for store roles.
    public var storeID: StoreID?
    public var staffRole: StaffRole?
    public var active: Bool
    /// Whether they showed the address is theirs, by the link mailed to it; false for users
    /// stored before it was kept.
    public var emailVerified: Bool
    /// Whether a courier is taking deliveries now; false for every other role.
    public var onDuty: Bool
    /// The language notifications are written in for them: a BCP 47 tag (`en`, `he`, `ar-EG`);
    /// `en` for users stored before it was kept.
    public var locale: String
    /// Their IANA time zone (`Asia/Jerusalem`), which a courier's earnings are grouped by into
    /// days; nil (UTC) until they choose one.
    public var timeZone: String?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    /// Whether a store user has a shift open, and since when: the payments service's, set on
    /// the copy a reader receives, never stored.
    public var isClockedIn: Bool?
    public var clockedInAt: Date?

    public init(
        id: UserID, email: String?, name: String, phone: String?, role: Role, storeID: StoreID?,
        staffRole: StaffRole?, active: Bool, emailVerified: Bool = false, onDuty: Bool,
        locale: String = User.defaultLocale, version: Int64, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.email = email
        self.name = name
        self.phone = phone
        self.role = role
        self.storeID = storeID
        self.staffRole = staffRole
        self.active = active
        self.emailVerified = emailVerified
        self.onDuty = onDuty
        self.locale = locale
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, email, name, phone, role, active, locale, version
        case photoURL = "photo_url"
        case timeZone = "tz"
        case isClockedIn = "is_clocked_in"
        case clockedInAt = "clocked_in_at"
        case storeID = "store_id"
        case staffRole = "staff_role"
        case onDuty = "on_duty"
        case emailVerified = "email_verified"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UserID.self, forKey: .id)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        name = try container.decode(String.self, forKey: .name)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        photoURL = try container.decodeIfPresent(String.self, forKey: .photoURL)
        role = try container.decode(Role.self, forKey: .role)
        storeID = try container.decodeIfPresent(StoreID.self, forKey: .storeID)
        staffRole = try container.decodeIfPresent(StaffRole.self, forKey: .staffRole)
        active = try container.decode(Bool.self, forKey: .active)
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false
        onDuty = try container.decode(Bool.self, forKey: .onDuty)
        locale = try container.decodeIfPresent(String.self, forKey: .locale) ?? Self.defaultLocale
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        version = try container.decode(Int64.self, forKey: .version)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        isClockedIn = try container.decodeIfPresent(Bool.self, forKey: .isClockedIn)
        clockedInAt = try container.decodeIfPresent(Date.self, forKey: .clockedInAt)
    }

    /// Why `password` cannot be anyone's new password, or nil: it must be 8 to 72 characters
    /// long (any characters).
    public static func passwordProblem(_ password: String) -> String? {
        (8...72).contains(password.unicodeScalars.count) ? nil : "must be 8 to 72 characters long"
    }

    /// The locale of a user who has not chosen one.
    public static let defaultLocale = "en"

    /// Whether `text` is a BCP 47 language tag as accepted here: a language of two or three
    /// lower-case letters, then up to three subtags of 2 to 8 letters or digits (`he`, `ar-EG`,
    /// `zh-Hant-TW`), at most 35 characters.
    public static func isLocale(_ text: String) -> Bool {
        func isLower(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            isLower(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        let parts = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard text.utf8.count <= 35, (1...4).contains(parts.count), (2...3).contains(parts[0].count),
            parts[0].allSatisfy(isLower)
        else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy(isAlphanumeric) }
    }

    /// The principal this user acts as, on duty or not.
    public var principal: Principal { Principal(userID: id, role: role, storeID: storeID, onDuty: onDuty) }

    /// An e-mail address as it is stored and compared: NFKC-normalised and case-folded
    /// (`Ｍａｉｌ@Example.COM` and `mail@example.com` are one address, as are `STRASSE@x.de` and
    /// `straße@x.de`), so that no two accounts differ only in how their address was typed.
    public static func normalizedEmail(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
    }

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
