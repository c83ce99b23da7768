import Domain
import Storage

/// The orders service's locks.
extension Lock {
    /// A courier's claims and releases, counted one at a time.
    static func claims(of courier: UserID) -> Lock { Lock("orders.courier", courier) }
    /// What an order's payments did to it, followed one event at a time.
    static func payments(of order: OrderID) -> Lock { Lock("orders.payments", order) }
    /// A customer's unpaid card orders, counted one checkout at a time.
    static func unpaidOrders(of customer: UserID) -> Lock { Lock("orders.customer.unpaid", customer) }
}
