import Contracts
import Domain
import Foundation
import Logging
import Redis
import Runtime
import ServiceLifecycle
import Storage

/// Keeps each order's `paid_amount` and `payment_status` as the payments service's events tell:
/// a completed payment for the order adds its subtotal (the tip is the staff's, not the
/// order's), a refund of one takes its amount back. Each event is applied once, in one
/// transaction with its inbox record, as a change of the order: the next version, a history
/// entry, and `order.updated`.
struct OrderPayments: Sendable {
    let database: Database
    let orders: OrdersRepository

    static let consumer = "orders.payments"

    /// The consumer of the payments service's events, in the orders service's group.
    func consumer(_ environment: ServiceEnvironment) -> any Service {
        let handler: EventConsumer.Handler = { event in try await apply(event) }
        return EventConsumer(
            redis: environment.consumerRedis(),
            configuration: EventConsumerConfiguration(
                stream: eventStream(of: PaymentsAPI.service), group: OrdersAPI.service,
                consumer: environment.instance, executor: environment.database.preferredExecutor),
            handlers: [PaymentsAPI.Events.completed: handler, PaymentsAPI.Events.refunded: handler],
            logger: environment.logger)
    }

    func apply(_ event: DomainEvent) async throws {
        let (payment, amount, change): (Payment, Int64, String)
        if event.type == PaymentsAPI.Events.refunded {
            let refunded = try event.payload.decode(as: PaymentRefunded.self)
            (payment, amount, change) = (refunded.payment, -refunded.refund.amount, "payment_refunded")
        } else {
            payment = try event.payload.decode(as: Payment.self)
            (amount, change) = (payment.subtotal, "payment_completed")
        }
        guard let orderID = payment.orderID else { return }
        let orders = self.orders
        try await database.applyOnce(event, consumer: Self.consumer) { transaction in
            guard var order = try await orders.find(orderID, in: transaction.sql) else { return }
            let previousVersion = order.version
            order.recordPayment(amount)
            order.version += 1
            order.updatedAt = Date.currentMillisecond
            guard
                try await orders.update(
                    order, previousVersion: previousVersion, leftPool: false, releasedBy: nil, in: transaction)
            else {
                throw OrderlyError(.conflict, "the order changed meanwhile", reason: "version_conflict")
            }
            let entry = OrderHistoryEntry(
                seq: order.version, orderID: orderID, at: order.updatedAt, actorID: payment.staffID, actorRole: .staff,
                change: change,
                details: [
                    "payment_id": .string(payment.id.description), "amount": .int(abs(amount)),
                    "paid_amount": .int(order.paidAmount ?? 0),
                ])
            try await orders.appendHistory(entry, in: transaction)
            transaction.publish(
                try OrdersEvents.changed(OrdersAPI.Events.updated, OrderChange(order: order, change: entry)))
        }
    }
}
