public import Domain
public import Foundation
import WireContract

/// A device the notifications of `user_id` are pushed to.
public struct Device: Codable, Sendable, Hashable {
    public var id: DeviceID
    public var userID: UserID
    public var platform: String
    /// The push token the platform gave the app, in hex.
    public var token: String
    public var bundleID: String
    public var environment: String
    /// The language pushes to it are written in; nil for the user's own, whatever it is when
    /// each is sent.
    public var locale: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: DeviceID, userID: UserID, platform: String, token: String, bundleID: String, environment: String,
        locale: String?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.platform = platform
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.locale = locale
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, platform, token, environment, locale
        case userID = "user_id"
        case bundleID = "bundle_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Every key, `locale` as null when the device follows its user's language.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(userID, forKey: .userID)
        try container.encode(platform, forKey: .platform)
        try container.encode(token, forKey: .token)
        try container.encode(bundleID, forKey: .bundleID)
        try container.encode(environment, forKey: .environment)
        try container.encode(locale, forKey: .locale)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}
