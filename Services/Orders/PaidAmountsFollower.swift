import Contracts
import Domain
import Events
import Foundation
import Runtime
import Storage

/// Keeps each order's `paid_amount` and `payment_status` as the payments service's events tell.
/// A completed payment for the order pays its subtotal (the tip is the staff's, not the
/// order's); its refunds take back first the tip, then the subtotal. Each event carries the
/// payment as it is now, so the order keeps what each of its payments pays by the payment's
/// latest version, and its `paid_amount` is their sum: events read twice, late or out of order
/// change nothing. Each change is applied once, in one transaction with its inbox record, as a
/// change of the order: the next version, a history entry, and `order.updated`.
struct PaidAmountsFollower: EventFollower {
    static let producer = PaymentsAPI.service
    static let types = [PaymentsAPI.Events.completed, PaymentsAPI.Events.refunded]
    /// The name its applied events are recorded under (the inbox).
    static let consumer = "orders.payments"

    let database: Database
    let orders: OrdersRepository

    /// Who took `payment`: the customer paying online, the courier collecting cash at the door,
    /// or the store's staff.
    static func role(of payment: Payment, for order: Order) -> Role {
        if payment.staffID == payment.customerUserID { return .customer }
        return payment.staffID == order.courierID ? .courier : .staff
    }

    func apply(_ event: DomainEvent) async throws {
        let refunded = event.type == PaymentsAPI.Events.refunded
        let payment =
            refunded
            ? try event.payload.decode(as: PaymentRefunded.self).payment : try event.payload.decode(as: Payment.self)
        guard let orderID = payment.orderID else { return }
        let (orders, book) = (self.orders, OrderBook(orders: orders))
        try await database.applyOnce(event, consumer: Self.consumer) { transaction in
            try await transaction.lock(.payments(of: orderID))
            guard
                let paid = try await orders.recordPayment(
                    payment.orderShare, of: payment, for: orderID, in: transaction)
            else { return }
            // The order may be changed by its staff meanwhile: read it again until the write holds.
            for _ in 0..<5 {
                guard var order = try await orders.find(orderID, in: transaction.sql) else { return }
                let read = order
                order.setPaid(paid, anyPayment: true)
                if !order.awaitsPayment { order.payBy = nil }
                let change = OrderBook.Change(
                    name: refunded ? "payment_refunded" : "payment_completed", event: OrdersAPI.Events.updated,
                    details: ["payment_id": .string(payment.id.description), "paid_amount": .int(paid)])
                let actor = OrderBook.Actor(id: payment.staffID, role: Self.role(of: payment, for: order))
                guard try await book.record(&order, changedFrom: read, change, by: actor, in: transaction) else {
                    continue
                }
                // A card order paid in full reaches its store now, which may accept it by itself.
                if !refunded, order.paymentMethod == .card, order.autoAccept == true, !order.awaitsPayment,
                    try await !book.acceptForStore(&order, in: transaction)
                {
                    throw OrderlyError(.internal, "an order changed within its own transaction")
                }
                return
            }
            throw OrderlyError(.versionConflict, "the order kept changing; trying again later")
        }
    }
}
