import Contracts
import Domain
import Events
import Foundation
import Redis
import Runtime
import SQLKit
import ServiceLifecycle
import Storage

/// Keeps each order's `paid_amount` and `payment_status` as the payments service's events tell.
/// A completed payment for the order pays its subtotal (the tip is the staff's, not the
/// order's); its refunds take back first the tip, then the subtotal. Each event carries the
/// payment as it is now, so the order keeps what each of its payments pays by the payment's
/// latest version, and its `paid_amount` is their sum: events read twice, late or out of order
/// change nothing. Each change is applied once, in one transaction with its inbox record, as a
/// change of the order: the next version, a history entry, and `order.updated`.
struct OrderPayments: Sendable {
    let database: Database
    let orders: OrdersRepository

    static let consumer = "orders.payments"

    /// The consumer of the payments service's events, in the orders service's group.
    func consumer(_ environment: ServiceEnvironment) -> any Service {
        environment.consumer(
            of: PaymentsAPI.service, group: OrdersAPI.service,
            types: [PaymentsAPI.Events.completed, PaymentsAPI.Events.refunded]
        ) { try await apply($0) }
    }

    func apply(_ event: DomainEvent) async throws {
        let refunded = event.type == PaymentsAPI.Events.refunded
        let payment =
            refunded
            ? try event.payload.decode(as: PaymentRefunded.self).payment : try event.payload.decode(as: Payment.self)
        guard let orderID = payment.orderID else { return }
        let orders = self.orders
        try await database.applyOnce(event, consumer: Self.consumer) { transaction in
            try await transaction.lock("orders.payments:\(orderID)")
            guard
                let paid = try await Self.record(
                    payment.orderShare, of: payment, for: orderID, in: transaction)
            else { return }
            // The order may be changed by its staff meanwhile: read it again until the write holds.
            for _ in 0..<5 {
                guard var order = try await orders.find(orderID, in: transaction.sql) else { return }
                let previousVersion = order.version
                order.setPaid(paid, anyPayment: true)
                order.version += 1
                order.updatedAt = Date.currentMillisecond
                guard
                    try await orders.update(
                        order, previousVersion: previousVersion, leftPool: false, releasedBy: nil, in: transaction)
                else { continue }
                let entry = OrderHistoryEntry(
                    seq: order.version, orderID: orderID, at: order.updatedAt, actorID: payment.staffID,
                    actorRole: .staff, change: refunded ? "payment_refunded" : "payment_completed",
                    details: ["payment_id": .string(payment.id.description), "paid_amount": .int(paid)])
                try await orders.appendHistory(entry, in: transaction)
                transaction.publish(
                    try OrdersEvents.changed(OrdersAPI.Events.updated, OrderChange(order: order, change: entry)))
                return
            }
            throw OrderlyError(.conflict, "the order kept changing; trying again later", reason: "version_conflict")
        }
    }

    /// Records what `payment` (at its version) pays of the order, unless a later version of it
    /// was recorded; returns the order's total paid, or nil when this changed nothing.
    private static func record(
        _ amount: Int64, of payment: Payment, for order: OrderID, in transaction: Transaction
    ) async throws -> Int64? {
        let known = try await transaction.sql.raw(
            "SELECT version FROM order_payments WHERE payment_id = \(bind: payment.id.description)"
        ).first()?.decode(column: "version", as: Int64.self)
        if let known, known >= payment.version { return nil }
        try await transaction.sql.raw(
            """
            INSERT INTO order_payments (payment_id, order_id, version, amount)
            VALUES (\(bind: payment.id.description), \(bind: order.description), \(bind: payment.version), \(bind: amount))
            ON CONFLICT (payment_id) DO UPDATE SET version = excluded.version, amount = excluded.amount
            """
        ).run()
        return try await transaction.sql.raw(
            "SELECT SUM(amount) AS paid FROM order_payments WHERE order_id = \(bind: order.description)"
        ).first()?.decode(column: "paid", as: Int64?.self) ?? 0
    }
}
