public import Domain
import Foundation
import WireContract

/// A new endpoint of `store_id`: an `https` (or `http`) URL, the event types it hears of
/// (at least one of `WebhooksAPI.eventTypes`), active unless said otherwise.
public struct WebhookDraft: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var url: String?
    public var events: [String]?
    public var active: Bool?

    public init(storeID: StoreID?, url: String?, events: [String]?, active: Bool? = nil) {
        self.storeID = storeID
        self.url = url
        self.events = events
        self.active = active
    }

    enum CodingKeys: String, CodingKey {
        case url, events, active
        case storeID = "store_id"
    }
}
