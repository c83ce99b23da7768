public import Domain
import Foundation
import WireContract

/// The payload of an order event after its creation: the order as it now is, and the change
/// that made it so (the entry of its history).
public struct OrderChange: Codable, Sendable, Hashable {
    public var order: Order
    public var change: OrderHistoryEntry

    public init(order: Order, change: OrderHistoryEntry) {
        self.order = order
        self.change = change
    }
}
