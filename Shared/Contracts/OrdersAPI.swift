public import Domain
public import Foundation
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

/// A customer's checkout as the gateway forwards it: the draft (a saved address already put in
/// place of `address_id`) and the customer, from their profile.
public struct CheckoutRequest: Codable, Sendable, Hashable {
    public var draft: CheckoutDraft
    public var customer: CheckoutCustomer

    public init(draft: CheckoutDraft, customer: CheckoutCustomer) {
        self.draft = draft
        self.customer = customer
    }
}

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

/// How a list of orders is sorted.
public enum OrderSort: String, Codable, Sendable, Hashable, CaseIterable {
    /// Newest first (the default).
    case newest = "-created_at"
    case oldest = "created_at"
    /// Soonest due first; orders without a due date last.
    case dueSoonest = "due_at"
    case dueLatest = "-due_at"
}

/// Which orders to list. Store users see their store's orders, couriers the delivery orders
/// nobody has claimed and their own, customers the ones they created, admins all (or one
/// store's with `storeID`). The filters narrow that scope.
public struct OrderListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var statuses: [OrderStatus]?
    public var fulfillment: Fulfillment?
    public var courierID: UserID?
    /// Only unclaimed delivery orders a courier can claim now.
    public var available: Bool?
    public var createdFrom: Date?
    public var createdTo: Date?
    public var dueFrom: Date?
    public var dueTo: Date?
    /// Matches the order number and the recipient's or customer's name; a phone-like search
    /// (four or more characters, each a digit, a space or one of `+()-`) also the phone, in the orders whose phone the caller sees.
    public var search: String?
    public var sort: OrderSort?
    public var page: PageRequest

    public init(
        storeID: StoreID? = nil, statuses: [OrderStatus]? = nil, fulfillment: Fulfillment? = nil,
        courierID: UserID? = nil, available: Bool? = nil, createdFrom: Date? = nil, createdTo: Date? = nil,
        dueFrom: Date? = nil, dueTo: Date? = nil, search: String? = nil, sort: OrderSort? = nil,
        page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.statuses = statuses
        self.fulfillment = fulfillment
        self.courierID = courierID
        self.available = available
        self.createdFrom = createdFrom
        self.createdTo = createdTo
        self.dueFrom = dueFrom
        self.dueTo = dueTo
        self.search = search
        self.sort = sort
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case statuses, fulfillment, available, search, sort, page
        case storeID = "store_id"
        case courierID = "courier_id"
        case createdFrom = "created_from"
        case createdTo = "created_to"
        case dueFrom = "due_from"
        case dueTo = "due_to"
    }
}

/// The change feed after `since` ("0" for everything).
public struct OrderChangesRequest: Codable, Sendable, Hashable {
    public var since: String
    public var storeID: StoreID?
    public var limit: Int?

    public init(since: String, storeID: StoreID? = nil, limit: Int? = nil) {
        self.since = since
        self.storeID = storeID
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case since, limit
        case storeID = "store_id"
    }
}

/// Orders in the caller's scope that changed after the cursor, oldest change first; `removed`
/// names the ones that changed and are no longer the caller's to see (a courier's view of an
/// order another courier claimed). `nextCursor` is always set: the cursor to ask from next.
public struct OrderChangesPage: Codable, Sendable {
    public var data: [Order]
    public var removed: [OrderID]
    public var nextCursor: String
    /// Whether more changes wait after this page.
    public var hasMore: Bool

    public init(data: [Order], removed: [OrderID], nextCursor: String, hasMore: Bool) {
        self.data = data
        self.removed = removed
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case data, removed
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }
}

/// Changes to an order's own fields.
public typealias OrderPatch = Patch<OrderID, OrderDraft>

/// `POST /v1/orders/{id}/actions/{action}`; `cancel` needs a `reason`.
public struct OrderActionRequest: Codable, Sendable, Hashable {
    public var id: OrderID
    public var action: OrderAction
    public var reason: String?
    public var expectedVersion: Int64?
    /// On `deliver`: the cash the courier collected for a cash-on-delivery order.
    public var cashCollected: Int64?
    /// On a courier's `claim`: their first name, which the gateway knows, for the customer.
    public var courierFirstName: String?

    public init(
        id: OrderID, action: OrderAction, reason: String? = nil, expectedVersion: Int64? = nil,
        cashCollected: Int64? = nil, courierFirstName: String? = nil
    ) {
        self.id = id
        self.action = action
        self.reason = reason
        self.expectedVersion = expectedVersion
        self.cashCollected = cashCollected
        self.courierFirstName = courierFirstName
    }

    enum CodingKeys: String, CodingKey {
        case id, action, reason
        case expectedVersion = "expected_version"
        case cashCollected = "cash_collected"
        case courierFirstName = "courier_first_name"
    }
}

/// An order's history, oldest first.
public struct OrderHistoryRequest: Codable, Sendable, Hashable {
    public var id: OrderID
    public var page: PageRequest

    public init(id: OrderID, page: PageRequest = PageRequest()) {
        self.id = id
        self.page = page
    }
}

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

/// A courier's earnings over [`from`, `to`).
public struct EarningsRequest: Codable, Sendable, Hashable {
    public var from: Date
    public var to: Date

    public init(from: Date, to: Date) {
        self.from = from
        self.to = to
    }
}

/// What a courier earned by the orders they delivered in a time range, per currency: the
/// stores' delivery fees and the customers' tips, with the cash they collected at the door (which
/// they owe); in total and per day (UTC).
public struct Earnings: Codable, Sendable, Hashable {
    public struct Total: Codable, Sendable, Hashable {
        public var currency: CurrencyCode
        public var deliveries: Int
        public var deliveryFees: Int64
        public var tips: Int64
        public var cashCollected: Int64

        public init(currency: CurrencyCode, deliveries: Int, deliveryFees: Int64, tips: Int64, cashCollected: Int64) {
            self.currency = currency
            self.deliveries = deliveries
            self.deliveryFees = deliveryFees
            self.tips = tips
            self.cashCollected = cashCollected
        }

        enum CodingKeys: String, CodingKey {
            case currency, deliveries, tips
            case deliveryFees = "delivery_fees"
            case cashCollected = "cash_collected"
        }
    }

    /// One day's totals (a UTC day, `YYYY-MM-DD`), per currency.
    public struct Day: Codable, Sendable, Hashable {
        public var date: String
        public var totals: [Total]

        public init(date: String, totals: [Total]) {
            self.date = date
            self.totals = totals
        }
    }

    public var courierID: UserID
    public var from: Date
    public var to: Date
    public var deliveries: Int
    public var totals: [Total]
    /// The days with deliveries, oldest first.
    public var days: [Day]

    public init(courierID: UserID, from: Date, to: Date, deliveries: Int, totals: [Total], days: [Day]) {
        self.courierID = courierID
        self.from = from
        self.to = to
        self.deliveries = deliveries
        self.totals = totals
        self.days = days
    }

    enum CodingKeys: String, CodingKey {
        case from, to, deliveries, totals, days
        case courierID = "courier_id"
    }
}
