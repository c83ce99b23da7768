import Contracts
import Domain
import Events
import Foundation
import Logging
import Runtime
import Storage
import Wire

/// The money of orders, as the orders service's status changes tell it: the cash a courier
/// collected for a customer's cash-on-delivery order becomes a completed cash payment taken by
/// the courier (numbered receipt, the store's statistics), a delivered order's fee and tip go
/// from its store to its courier in the ledger, and a cancelled customer's order gets its
/// completed card payments refunded in full and its pending ones cancelled. Each event is
/// applied once, in one transaction with its inbox record.
struct OrdersFollower: EventFollower {
    static let producer = OrdersAPI.service
    static let types = [OrdersAPI.Events.statusChanged]
    /// The name its applied events are recorded under (the inbox).
    static let consumer = "payments.orders"
    /// It applies customers' status changes alone, where a fifth of a second is nothing; read
    /// back to back, the stream would wake it for each new order to skip.
    static let readPause = Duration.milliseconds(200)

    let database: Database
    /// The order's store, for the receipt's header.
    let catalog: any WireCaller
    let logger: Logger

    var payments: PaymentsRepository { PaymentsRepository(database: database) }
    var refunds: RefundsRepository { RefundsRepository(database: database) }

    func apply(_ event: DomainEvent) async throws {
        // A store's order that is not delivered has nothing to do here: passed over undecoded.
        guard event.payload.mentions("\"customer_id\"") || event.payload.mentions("\"status\":\"delivered\"") else {
            return
        }
        let order = try event.payload.decode(as: OrderChange.self).order
        switch order.status {
        case .delivered:
            // The customer's own view of the store names it on the receipt; the payments service
            // reads its terms whole.
            let header: ReceiptHeader? =
                if let customer = order.customerID, order.cashCollected != nil {
                    ReceiptHeader(
                        store: try await catalog.call(
                            CatalogAPI.getStore, ResourceRef(id: order.storeID),
                            options: WireCallOptions(
                                principal: Principal(userID: customer, role: .customer, storeID: nil))),
                        staffName: nil)
                } else { nil }
            let ledger = LedgerRepository()
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                if let header { try await recordCash(of: order, header: header, in: transaction) }
                if let delivery = Ledger.delivery(order, at: order.deliveredAt ?? event.occurredAt) {
                    try await ledger.post(delivery, in: transaction)
                }
            }
        case .cancelled where order.customerID != nil:
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                try await giveBack(order, in: transaction)
            }
        default:
            return
        }
    }

    /// A completed cash payment of what was left to pay and the tip, taken by the courier, with
    /// what they collected as tendered and the rest as change.
    private func recordCash(of order: Order, header: ReceiptHeader, in transaction: Transaction) async throws {
        guard let courier = order.courierID, let collected = order.cashCollected, let customer = order.customerID else {
            return
        }
        let payments = self.payments
        let left: Int64
        do {
            left = try await PaymentsHandlers.orderShare(nil, of: order, payments, in: transaction)
        } catch let error as OrderlyError where error.reason == "order_paid" {
            return
        }
        let tip = order.tip ?? 0
        let now = Date.currentMillisecond
        let record = try await CustomersRepository(database: database).linked(
            to: customer, in: order.storeID, in: transaction.sql)
        var payment = Payment(
            id: PaymentID(), storeID: order.storeID, orderID: order.id, customerID: record?.id,
            customerUserID: customer, items: [],
            subtotal: left, vat: 0, tip: tip, currency: order.currency, method: .cash, status: .pending,
            staffID: courier, reservationID: nil, expiresAt: nil, createdAt: now)
        try await payments.insert(payment, header: header, in: transaction)
        try payment.move(to: .completed, at: now)
        payment.amountTendered = collected
        payment.changeDue = max(0, collected - payment.amount)
        payment.collectedOnDelivery = true
        try await PaymentsHandlers.save(&payment, payments, in: transaction)
    }

    /// Refunds in full what completed card payments of the cancelled `order` paid, and cancels
    /// those still pending, under each payment's lock.
    private func giveBack(_ order: Order, in transaction: Transaction) async throws {
        let (payments, refunds) = (self.payments, self.refunds)
        for found in try await payments.payments(of: order.id, in: transaction.sql) where found.method != .cash {
            try await transaction.lock("payments.payment:\(found.id)")
            guard var payment = try await payments.payment(found.id, in: transaction.sql) else { continue }
            switch payment.status {
            case .completed, .partiallyRefunded:
                _ = try await RefundsHandlers.record(
                    payment.amount - payment.refundedAmount, of: &payment, reason: "the order was cancelled",
                    restock: [], by: payment.staffID, payments, refunds, in: transaction)
            case .pending, .confirmed:
                try payment.move(to: .cancelled, at: Date.currentMillisecond)
                try await PaymentsHandlers.save(&payment, payments, in: transaction)
            case .processing:
                logger.warning(
                    "a card payment of a cancelled order is still with its provider; refund it once it completes",
                    metadata: ["payment.id": "\(payment.id)", "order.id": "\(order.id)"])
            case .failed, .cancelled, .expired, .refunded:
                continue
            }
        }
    }
}
