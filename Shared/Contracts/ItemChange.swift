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

    public init(
        orderID: OrderID, kind: Kind, itemID: OrderItemID? = nil, item: OrderItemDraft? = nil,
        expectedVersion: Int64? = nil
    ) {
        self.orderID = orderID
        self.kind = kind
        self.itemID = itemID
        self.item = item
        self.expectedVersion = expectedVersion
    }

    enum CodingKeys: String, CodingKey {
        case kind, item
        case orderID = "order_id"
        case itemID = "item_id"
        case expectedVersion = "expected_version"
    }
}
