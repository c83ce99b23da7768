public import Domain
import Foundation
import WireContract

/// A change to an order's lines.
public struct ItemChange: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable {
        case add, update, remove
    }

    public var orderID: OrderID
    public var kind: Kind
    /// The line to change or remove.
    public var itemID: OrderItemID?
    public var item: OrderItemDraft?
    public var expectedVersion: Int64?
    /// The store of the customer's device the line names (`item.device_id`), as the payments
    /// service told the gateway, which asked it as the caller; nil when the line names none.
    public var deviceStoreID: StoreID?

    public init(
        orderID: OrderID, kind: Kind, itemID: OrderItemID? = nil, item: OrderItemDraft? = nil,
        expectedVersion: Int64? = nil, deviceStoreID: StoreID? = nil
    ) {
        self.orderID = orderID
        self.kind = kind
        self.itemID = itemID
        self.item = item
        self.expectedVersion = expectedVersion
        self.deviceStoreID = deviceStoreID
    }

    enum CodingKeys: String, CodingKey {
        case kind, item
        case orderID = "order_id"
        case itemID = "item_id"
        case expectedVersion = "expected_version"
        case deviceStoreID = "device_store_id"
    }
}
