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
/// the courier (numbered receipt, the store's statistics), a delivered order's fee and the tips
/// its payments paid go from its store to its courier in the ledger, and a cancelled customer's
/// order gets its completed card payments refunded in full, by whoever cancelled it and for
/// their reason (the gateway asked `payments.refunds.check_cancel` whether they may, and it is
/// asked again here), and its pending ones cancelled. Each event is applied once, in one transaction with its inbox
/// record.
struct OrderMoneyFollower: EventFollower {
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

    var book: PaymentBook { PaymentBook(database: database) }
    var payments: PaymentsRepository { book.payments }

    func apply(_ event: DomainEvent) async throws {
        // A store's order that is not delivered has nothing to do here: passed over undecoded.
        guard event.payload.mentions("\"customer_id\"") || event.payload.mentions("\"status\":\"delivered\"") else {
            return
        }
        let change = try event.payload.decode(as: OrderChange.self)
        let order = change.order
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
            let (ledger, payments) = (LedgerRepository(), self.payments)
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                // The tips counted here and a tip completing meanwhile (`LedgerFollower`) wait on each other.
                try await transaction.lock(.payments(of: order.id))
                if let header { try await recordCash(of: order, header: header, in: transaction) }
                let paid = try await payments.payments(of: order.id, in: transaction.sql)
                if let delivery = Ledger.delivery(order, paid: paid, at: order.deliveredAt ?? event.occurredAt) {
                    try await ledger.post(delivery, in: transaction)
                }
            }
        case .cancelled where order.customerID != nil:
            // Whoever cancelled it was asked to be allowed the refund before (the gateway's check);
            // asked again here, against what it refunds now, so that no path refunds past their
            // limit. Not whether they are still clocked in: a shift closed since does not take
            // back a customer's refund the cancel was allowed.
            let canceller = change.change.actorID.map { user in
                Principal(
                    userID: user, role: change.change.actorRole ?? .customer,
                    storeID: change.change.actorRole?.isStoreRole == true ? order.storeID : nil)
            }
            let store: Store? =
                if canceller != nil {
                    try await catalog.call(
                        CatalogAPI.getStore, ResourceRef(id: order.storeID),
                        options: WireCallOptions(principal: canceller))
                } else { nil }
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                try await giveBack(order, cancelledBy: canceller, store: store, in: transaction)
            }
        default:
            return
        }
    }

    /// A completed cash payment of what was left to pay and the tip, taken by the courier, with
    /// what they collected as tendered and the rest as change. What is left counts the completed
    /// payments alone: one the till rang up and nobody completed is cancelled, since the customer
    /// paid at the door instead (the courier's cash is always booked); one still with its provider
    /// is left to it, and logged, as its completion would pay the order twice.
    private func recordCash(of order: Order, header: ReceiptHeader, in transaction: Transaction) async throws {
        guard let courier = order.courierID, let collected = order.cashCollected, let customer = order.customerID else {
            return
        }
        let (payments, book) = (self.payments, self.book)
        let now = Date.currentMillisecond
        for found in try await payments.payments(of: order.id, in: transaction.sql) where !found.hasCompleted {
            try await transaction.lock(.payment(found.id))
            guard var payment = try await payments.payment(found.id, in: transaction.sql) else { continue }
            switch payment.status {
            case .pending, .confirmed:
                try payment.move(to: .cancelled, at: now)
                try await book.save(&payment, in: transaction)
            case .processing:
                logger.warning(
                    "cash was collected for an order whose payment is still with its provider; refund it if it completes",
                    metadata: ["payment.id": "\(payment.id)", "order.id": "\(order.id)"])
            case .completed, .partiallyRefunded, .refunded, .failed, .cancelled, .expired:
                continue
            }
        }
        let left: (subtotal: Int64, tip: Int64)
        do {
            left = try await book.orderShare(nil, of: order, completedOnly: true, in: transaction)
        } catch let error as OrderlyError where error.reason == .orderPaid {
            return
        }
        let record = try await book.customers.linked(to: customer, in: order.storeID, in: transaction.sql)
        var payment = Payment(
            id: PaymentID(), storeID: order.storeID, orderID: order.id, customerID: record?.id,
            customerUserID: customer, items: [],
            subtotal: left.subtotal, vat: 0, tip: left.tip, currency: order.currency, method: .cash, status: .pending,
            staffID: courier, reservationID: nil, expiresAt: nil, createdAt: now)
        try await book.open(
            &payment, header: header,
            movedBy: { payment in
                try payment.move(to: .completed, at: now)
                payment.amountTendered = collected
                payment.changeDue = max(0, collected - payment.amount)
                payment.collectedOnDelivery = true
            }, in: transaction)
    }

    /// Refunds in full what completed card payments of the cancelled `order` paid, by whoever
    /// cancelled it (the server itself for an order nobody paid for in time) for the order's
    /// reason, and cancels those still pending, under each payment's lock.
    private func giveBack(_ order: Order, cancelledBy canceller: Principal?, store: Store?, in transaction: Transaction)
        async throws
    {
        let (payments, book) = (self.payments, self.book)
        let reason = order.cancellationReason.map { "the order was cancelled: \($0)" } ?? "the order was cancelled"
        let made = try await payments.payments(of: order.id, in: transaction.sql)
        var refunding = true
        if let canceller, let store {
            do {
                try await book.checkCancelRefund(
                    of: order, amount: PaymentBook.refundedByCancelling(made), by: canceller, store: store,
                    checkingShift: false, in: transaction.sql)
            } catch let error as OrderlyError where error.reason == .refundNotAllowed {
                // Paid since the check, past what the canceller may refund: a manager refunds it.
                logger.error(
                    "a cancelled order's payments were not refunded: not the canceller's to refund",
                    metadata: ["order.id": "\(order.id)", "user.id": "\(canceller.userID)"])
                refunding = false
            }
        }
        for found in made where found.method != .cash {
            try await transaction.lock(.payment(found.id))
            guard var payment = try await payments.payment(found.id, in: transaction.sql) else { continue }
            switch payment.status {
            case .completed, .partiallyRefunded:
                guard refunding else { continue }
                _ = try await book.refund(
                    payment.amount - payment.refundedAmount, of: &payment, reason: String(reason.prefix(500)),
                    restock: [], by: canceller?.userID ?? payment.staffID, in: transaction)
            case .pending, .confirmed:
                try payment.move(to: .cancelled, at: Date.currentMillisecond)
                try await book.save(&payment, in: transaction)
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
