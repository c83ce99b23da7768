public import Domain
public import Wire

/// The orders service's methods.
public enum OrdersAPI {
    public static let service = "orders"
    /// Store users in their store, admins in any (`store_id`); needs an idempotency key.
    public static let createOrder = WireMethod<OrderDraft, Order>("orders.create", safeToRetry: false)
    public static let getOrder = WireMethod<ResourceRef<OrderID>, Order>("orders.get", safeToRetry: true)
    public static let listOrders = WireMethod<OrderListRequest, Page<Order>>("orders.list", safeToRetry: true)
}

/// Which orders to list, newest first. Store users see their store's orders, couriers the
/// delivery orders nobody has claimed and their own, customers the ones they created, admins
/// all (or one store's with `storeID`).
public struct OrderListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var statuses: [OrderStatus]?
    public var page: PageRequest

    public init(storeID: StoreID? = nil, statuses: [OrderStatus]? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.statuses = statuses
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case statuses, page
        case storeID = "store_id"
    }
}
