public import Foundation

/// One change in an order's life (`GET /v1/orders/{id}/history`): who made it, when, what it
/// was and, for a status change, from where to where.
public struct OrderHistoryEntry: Hashable, Sendable, Codable {
    /// Increasing within the order.
    public var seq: Int64
    public var orderID: OrderID
    public var at: Date
    /// Who made the change; nil for the server's own (accepting an order for a store that
    /// accepts by itself, cancelling a card order nobody paid for).
    public var actorID: UserID?
    public var actorRole: Role?
    /// `created`, an action (`accept`, `claim`, …), `updated`, `item_added`, `item_changed` or
    /// `item_removed`.
    public var change: String
    public var from: OrderStatus?
    public var to: OrderStatus?
    /// What else there is to know: the fields a change touched, the item, a cancellation reason.
    public var details: [String: JSONValue]?

    public init(
        seq: Int64, orderID: OrderID, at: Date, actorID: UserID?, actorRole: Role?, change: String,
        from: OrderStatus? = nil, to: OrderStatus? = nil, details: [String: JSONValue]? = nil
    ) {
        self.seq = seq
        self.orderID = orderID
        self.at = at
        self.actorID = actorID
        self.actorRole = actorRole
        self.change = change
        self.from = from
        self.to = to
        self.details = details
    }

    enum CodingKeys: String, CodingKey {
        case seq, at, change, from, to, details
        case orderID = "order_id"
        case actorID = "actor_id"
        case actorRole = "actor_role"
    }
}
