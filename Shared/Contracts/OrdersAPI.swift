public import Domain
import Foundation
public import WireContract

/// The orders service's methods. Every one is scoped to the caller: store users act in their
/// store, couriers on delivery orders they may claim or carry, customers on their own orders,
/// admins anywhere. An order the caller cannot see is `not_found`.
public enum OrdersAPI {
    public static let service = "orders"
    /// The gateway calls everything; payments reads the order a payment is for.
    public static let callers = WireCallers([
        GatewayAPI.service: WireCallers.everything, PaymentsAPI.service: WireCallers.only(getOrder.name),
    ])
    /// Store users in their store, admins in any (`store_id`); needs an idempotency key.
    public static let createOrder = WireMethod<OrderDraft, Order>("orders.create", safeToRetry: false)
    /// A customer's order from their cart, priced from the catalog; needs an idempotency key.
    public static let checkout = WireMethod<CheckoutRequest, Order>("orders.checkout", safeToRetry: false)
    public static let getOrder = WireMethod<ResourceRef<OrderID>, Order>("orders.get", safeToRetry: true)
    public static let listOrders = WireMethod<OrderListRequest, Page<Order>>("orders.list", safeToRetry: true)
    /// The change feed for offline sync: what changed in the caller's scope after a cursor.
    public static let changes = WireMethod<OrderChangesRequest, OrderChangesPage>("orders.changes", safeToRetry: true)
    /// The order's own fields, by the store's users and admins while the order is editable.
    public static let updateOrder = WireMethod<OrderPatch, Order>("orders.update", safeToRetry: false)
    /// Takes a pending or cancelled order off its store's lists, cancelling a pending one first.
    public static let archiveOrder = WireMethod<ResourceRef<OrderID>, Order>("orders.archive", safeToRetry: false)
    /// A step of the status machine (`accept`, `claim`, `deliver`, …).
    public static let performAction = WireMethod<OrderActionRequest, Order>("orders.action", safeToRetry: false)
    public static let history = WireMethod<OrderHistoryRequest, Page<OrderHistoryEntry>>(
        "orders.history", safeToRetry: true)
    public static let listItems = WireMethod<ResourceRef<OrderID>, Page<OrderItem>>(
        "orders.items.list", safeToRetry: true)
    /// Adds, changes or removes a line; answers with the whole order, totals recomputed.
    public static let changeItems = WireMethod<ItemChange, Order>("orders.items.change", safeToRetry: false)
    /// A courier's delivery fees over a time range.
    public static let earnings = WireMethod<EarningsRequest, Earnings>("orders.earnings", safeToRetry: true)

    /// The events the orders service publishes on `orderly:events:orders`: `order.created` with
    /// the order as its payload, the others with an `OrderChange`.
    public enum Events {
        public static let created = "order.created"
        public static let claimed = "order.claimed"
        public static let released = "order.released"
        public static let statusChanged = "order.status_changed"
        /// The order's own fields or its items changed.
        public static let updated = "order.updated"
    }
}

/// Changes to an order's own fields.
public typealias OrderPatch = Patch<OrderID, OrderDraft>
