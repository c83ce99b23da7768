public import Domain
public import Foundation
import WireContract

/// A store's endpoint for its events. `secret` is in the answer only when it is new (at
/// creation and rotation); deliveries are signed with it.
public struct Webhook: Codable, Sendable, Hashable {
    public var id: WebhookID
    public var storeID: StoreID
    public var url: String
    public var events: [String]
    public var active: Bool
    /// Why deliveries stopped, when the service turned the endpoint off.
    public var disabledReason: String?
    public var secret: String?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: WebhookID, storeID: StoreID, url: String, events: [String], active: Bool, disabledReason: String?,
        secret: String?, version: Int64, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.storeID = storeID
        self.url = url
        self.events = events
        self.active = active
        self.disabledReason = disabledReason
        self.secret = secret
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, url, events, active, secret, version
        case storeID = "store_id"
        case disabledReason = "disabled_reason"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
