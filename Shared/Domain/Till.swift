public import Foundation

/// A shared till: a device a store's owner or manager registered, whose token lets the store's
/// people sign in on it with their PIN (`POST /v1/auth/pin`) and hand it over to one another
/// without signing the till out. The token is shown once, when the till is registered; only its
/// hash is kept. A revoked till signs nobody in, and the sessions opened on it end.
public struct Till: Hashable, Sendable, Codable {
    public var id: TillID
    public var storeID: StoreID
    public var name: String
    public var createdBy: UserID
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: TillID, storeID: StoreID, name: String, createdBy: UserID, createdAt: Date) {
        self.id = id
        self.storeID = storeID
        self.name = name
        self.createdBy = createdBy
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case storeID = "store_id"
        case createdBy = "created_by"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }

    /// A PIN as people type it on a till: 4 to 6 digits.
    public static func isPIN(_ text: String) -> Bool {
        (4...6).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// How many wrong PINs in a row lock a user out of every till, and for how long.
    public static let wrongPINsBeforeLockout = 5
    public static let lockout: TimeInterval = 15 * 60
}
