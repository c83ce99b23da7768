import Foundation

/// One of a user's sessions as they are shown it (`GET /v1/me/sessions`): a sign-in on a device,
/// kept going by its refresh tokens.
struct Session: Codable, Sendable, Hashable {
    var id: String
    /// The app's `User-Agent` when it last refreshed.
    var device: String?
    /// The network it last refreshed from (`203.0.113.0/24`), never the address.
    var network: String?
    var createdAt: Date
    var lastUsedAt: Date
    /// Whether it is the session of the request that asks.
    var current = false

    enum CodingKeys: String, CodingKey {
        case id, device, network, current
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}
