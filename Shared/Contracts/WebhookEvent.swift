public import Domain
public import Foundation
import WireContract

/// What a delivery's body is: the event, with the resource it carries as `data` (an order, an
/// order change `{order, change}`, a product, a payment, or `{payment, refund}`).
public struct WebhookEvent: Codable, Sendable, Hashable {
    public var id: String
    public var type: String
    public var createdAt: Date
    public var storeID: StoreID
    public var data: JSONValue

    public init(id: String, type: String, createdAt: Date, storeID: StoreID, data: JSONValue) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.storeID = storeID
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case id, type, data
        case createdAt = "created_at"
        case storeID = "store_id"
    }
}
