import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The one place a payment is written, in the caller's transaction: opened (its id claimed, stored
/// with the store's receipt header, its status announced), moved (with its receipt and the
/// customer's figures when it completes), refunded (with a receipt of its own), and its share of an
/// order worked out; and the drawer its cash goes through. The handlers, the provider reports,
/// the followers of orders and the expiry sweep all write through it.
struct PaymentBook: Sendable {
    let database: Database

    var payments: PaymentsRepository { PaymentsRepository(database: database) }
    var refunds: RefundsRepository { RefundsRepository(database: database) }
    var shifts: ShiftsRepository { ShiftsRepository(database: database) }
    var customers: CustomersRepository { CustomersRepository(database: database) }

    // MARK: Payments

    /// Takes the lock of a new payment's id, refusing an id already taken (409 naming `id`).
    func claim(_ id: PaymentID, in transaction: Transaction) async throws {
        try await transaction.lock(.payment(id))
        if try await payments.payment(id, in: transaction.sql) != nil {
            throw OrderlyError(.conflict, "a payment \(id) exists already", details: ["id": .string("is taken")])
        }
    }

    /// Stores a new payment with the header its receipts will carry and announces its status; or,
    /// when `move` is given, moves it at once and saves it (one event: the status it reached).
    func open(
        _ payment: inout Payment, header: ReceiptHeader, movedBy move: ((inout Payment) throws -> Void)? = nil,
        in transaction: Transaction
    ) async throws {
        try await payments.insert(payment, header: header, in: transaction)
        if let move {
            try move(&payment)
            try await save(&payment, in: transaction)
        } else {
            transaction.publish(try PaymentsEvents.reached(payment))
        }
    }

    /// Writes a payment that moved, with its receipt when it completed, and publishes the status
    /// it reached. The caller holds its lock.
    func save(_ payment: inout Payment, in transaction: Transaction) async throws {
        if payment.status == .completed, payment.receiptID == nil {
            let header = try await payments.header(of: payment.id, in: transaction.sql)
            let number = try await transaction.nextSequence("receipts.number.\(payment.storeID)")
            let receipt = Receipt(payment: payment, number: number, header: header)
            payment.receiptID = receipt.id
            try await payments.insert(receipt, in: transaction)
            try await customers.recordPayment(payment, in: transaction)
        }
        try await payments.update(payment, in: transaction)
        transaction.publish(try PaymentsEvents.reached(payment))
    }

    /// Refuses to move a pending payment whose time has run out, even before the sweep expires it.
    static func checkNotDue(_ payment: Payment, at now: Date) throws(OrderlyError) {
        if payment.status == .pending, let expiresAt = payment.expiresAt, now >= expiresAt {
            throw OrderlyError(
                .paymentExpired, "the payment expired at \(RFC3339.format(expiresAt))",
                details: ["status": .string("expired"), "allowed": .array([])])
        }
    }

    /// What a payment for `order` pays of it: `requested`, or what is left when absent; and what
    /// is left of the order's tip (`Payment.tipShare`: a tip refunded is left to pay again). What
    /// is left counts every payment for the order this service holds, those still in flight too
    /// (unless `completedOnly`), under the order's lock, so two payments rung up at once cannot
    /// both pay the rest.
    func orderShare(
        _ requested: Int64?, of order: Order, completedOnly: Bool = false, in transaction: Transaction
    ) async throws -> (subtotal: Int64, tip: Int64) {
        try await transaction.lock(.payments(of: order.id))
        let made = try await payments.payments(of: order.id, in: transaction.sql)
            .filter { !completedOnly || $0.hasCompleted }
        let taken = made.reduce(0) { $0 + $1.orderShare }
        let tipped = made.reduce(0) { $0 + $1.tipShare }
        let left = order.total - taken
        guard left > 0 else {
            throw OrderlyError(.orderPaid, "the order is paid in full")
        }
        if let requested, requested > left {
            throw OrderlyError(
                .failedPrecondition, "\(left) of the order is left to pay",
                details: ["amount": .string("must be at most \(left), what is left to pay")])
        }
        return (requested ?? left, max(0, (order.tip ?? 0) - tipped))
    }

    // MARK: Refunds

    /// Writes a refund of `amount` of `payment` (held under its lock, the amount and lines
    /// checked): the payment's refunded amount and status, the refund with its receipt, and
    /// `payment.refunded`.
    func refund(
        _ amount: Int64, of payment: inout Payment, reason: String, restock: [Reservation.Line], by staff: UserID,
        in transaction: Transaction
    ) async throws -> Refund {
        let now = Date.currentMillisecond
        payment.refundedAmount += amount
        try payment.move(to: payment.refundedAmount == payment.amount ? .refunded : .partiallyRefunded, at: now)
        let number = try await transaction.nextSequence("receipts.number.\(payment.storeID)")
        let refund = Refund(
            id: RefundID(), paymentID: payment.id, storeID: payment.storeID, amount: amount, currency: payment.currency,
            reason: reason, restockLines: restock, receiptID: ReceiptID(), staffID: staff, createdAt: now)
        let header = try await payments.header(of: payment.id, in: transaction.sql)
        var saleNumber: Int64?
        if let sale = payment.receiptID {
            saleNumber = try await payments.receipt(sale, in: transaction.sql)?.number
        }
        try await payments.insert(
            Receipt(refund: refund, of: payment, number: number, saleNumber: saleNumber, header: header),
            in: transaction)
        try await refunds.insert(refund, in: transaction)
        try await payments.update(payment, in: transaction)
        transaction.publish(try PaymentsEvents.refunded(payment, refund))
        return refund
    }

    /// What a cancel gives back of `payments`, an order's: what is left of each completed card
    /// (not cash) payment.
    static func refundedByCancelling(_ payments: [Payment]) -> Int64 {
        payments.filter { $0.method != .cash && ($0.status == .completed || $0.status == .partiallyRefunded) }
            .reduce(0) { $0 + $1.amount - $1.refundedAmount }
    }

    /// Refuses the cancel of `order` by `principal` when it would refund `amount` they may not
    /// (`AccessPolicy.mayRefundByCancelling`, with the store's staff refund limit; and, when
    /// `checkingShift`, a staff member clocked in at the store): 422 `refund_not_allowed`.
    func checkCancelRefund(
        of order: Order, amount: Int64, by principal: Principal, store: Store, checkingShift: Bool,
        in sql: any SQLDatabase
    ) async throws {
        let refusal = OrderlyError(
            .refundNotAllowed,
            "cancelling this order refunds \(amount) of its payments, which is not yours to refund; "
                + "an owner or manager of the store cancels it", details: ["amount": .int(amount)])
        guard AccessPolicy(principal).mayRefundByCancelling(order, amount: amount, staffLimit: store.staffRefundLimit)
        else { throw refusal }
        if principal.role == .staff, checkingShift,
            try await shifts.openShift(of: principal.userID, in: sql)?.storeID != order.storeID
        {
            throw refusal
        }
    }

    // MARK: The drawer

    /// Refuses a staff member who is not clocked in where the store requires it (422
    /// `not_clocked_in`); owners, managers and admins are not held to it.
    func checkClockedIn(_ principal: Principal, in store: Store, in sql: any SQLDatabase) async throws {
        guard store.requireClockIn, principal.role == .staff else { return }
        let shift = try await shifts.openShift(of: principal.userID, in: sql)
        guard shift?.storeID == store.id else {
            throw OrderlyError(
                .notClockedIn, "the store requires staff to be clocked in to take payments")
        }
    }

    /// Counts cash taken (`amount`) or given back (negative) in the drawer of `user`'s open
    /// shift in `store`. Cash moves only through a drawer: without an open shift there, it is
    /// refused (422 `not_clocked_in`), so that every coin handed over is in some shift's count.
    func countCash(_ amount: Int64, by user: UserID, in store: StoreID, in transaction: Transaction) async throws {
        try await transaction.lock(.shift(of: user))
        guard var shift = try await shifts.openShift(of: user, in: transaction.sql), shift.storeID == store else {
            throw OrderlyError(
                .notClockedIn, "cash goes into the drawer of an open shift: clock in at the store first")
        }
        if amount >= 0 { shift.cashSales += amount } else { shift.cashRefunds -= amount }
        try await shifts.update(shift, in: transaction)
    }
}
