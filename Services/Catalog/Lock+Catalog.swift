import Domain
import Storage

/// The catalog's locks. Where several are taken, a writer takes an order's or a payment's holds
/// first, then its reservations, then their products, each kind in id order.
extension Lock {
    /// A store's profile, while it is opened.
    static func store(_ id: StoreID) -> Lock { Lock("catalog.store", id) }
    /// The products of a store, one written at a time, so that a code checked is still free
    /// when inserted.
    static func products(of store: StoreID) -> Lock { Lock("catalog.products", store) }
    /// A product: its stock and what is held of it.
    static func product(_ id: ProductID) -> Lock { Lock("catalog.product", id) }
    /// A reservation of stock.
    static func reservation(_ id: ReservationID) -> Lock { Lock("catalog.reservation", id) }
    /// The stock held for an order's lines.
    static func holds(ofOrder id: OrderID) -> Lock { Lock("catalog.order-holds", id) }
    /// The stock held for a payment at the till.
    static func holds(ofPayment id: PaymentID) -> Lock { Lock("catalog.payment-holds", id) }
}
