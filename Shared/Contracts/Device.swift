public import Domain
public import Foundation
import WireContract

/// A device the notifications of `user_id` are pushed to: an iPhone's app or a browser.
public struct Device: Codable, Sendable, Hashable {
    public var id: DeviceID
    public var userID: UserID
    public var platform: String
    /// Where the platform's push service reaches it: an iPhone's push token in hex, an Android
    /// phone's FCM registration token, or a browser's push subscription endpoint.
    public var token: String
    /// An app's bundle id (an Android app's package name); nil for a browser.
    public var bundleID: String?
    /// An iPhone app's push environment; nil for an Android phone and a browser.
    public var environment: String?
    /// A browser's subscription keys, which each push is encrypted for; nil for an iPhone.
    public var keys: WebPushKeys?
    /// The language pushes to it are written in; nil for the user's own, whatever it is when
    /// each is sent.
    public var locale: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: DeviceID, userID: UserID, platform: String, token: String, bundleID: String?, environment: String?,
        keys: WebPushKeys? = nil, locale: String?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.platform = platform
        self.token = token
        self.bundleID = bundleID
        self.environment = environment
        self.keys = keys
        self.locale = locale
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, platform, token, environment, keys, locale
        case userID = "user_id"
        case bundleID = "bundle_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Every key of its platform, `locale` as null when the device follows its user's language.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(userID, forKey: .userID)
        try container.encode(platform, forKey: .platform)
        try container.encode(token, forKey: .token)
        try container.encodeIfPresent(bundleID, forKey: .bundleID)
        try container.encodeIfPresent(environment, forKey: .environment)
        try container.encodeIfPresent(keys, forKey: .keys)
        try container.encode(locale, forKey: .locale)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}
