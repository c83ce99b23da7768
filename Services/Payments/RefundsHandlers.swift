import Contracts
import Domain
import Foundation
import Logging
import NIOCore
import Runtime
import SQLKit
import Storage
import Wire

/// The payments service's Wire method of refunds: part or all of a completed payment given
/// back, with a receipt of its own and the restocked units returned to the shelf by the
/// catalog (`payment.refunded`).
struct RefundsHandlers: Sendable {
    let database: Database
    /// The store a payment is of: who may refund how much, whether staff must be clocked in.
    let catalog: any WireCaller
    /// The order a cancel would refund the payments of, as its canceller sees it.
    let orders: any WireCaller

    var payments: PaymentsRepository { PaymentsRepository(database: database) }
    var refunds: RefundsRepository { RefundsRepository(database: database) }
    var shifts: ShiftsRepository { ShiftsRepository(database: database) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.refund) { request, context in
            try await refund(
                request, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "refunding a payment"))
        }
        router.register(PaymentsAPI.checkCancelRefund) { ref, context in
            try await checkCancelRefund(ref.id, principal: context.requirePrincipal())
        }
    }

    /// What cancelling the order would refund, refused (422 `refund_not_allowed`) when the caller
    /// may not refund it (`checkCancelRefund(of:amount:by:store:_:in:)`); an order the caller
    /// cannot see is 404, as the orders service would answer, and a cancel it would refuse for
    /// another reason refunds nothing here (0), so that its own answer follows.
    func checkCancelRefund(_ id: OrderID, principal: Principal) async throws -> CancelRefundCheck {
        let payments = self.payments
        let amount = Self.refundedByCancelling(try await database.read { try await payments.payments(of: id, in: $0) })
        guard amount > 0 else { return CancelRefundCheck(amount: 0, currency: nil) }
        let options = WireCallOptions(principal: principal)
        let order = try await orders.call(OrdersAPI.getOrder, ResourceRef(id: id), options: options)
        // A cancel the orders service refuses anyway (not theirs to do, or not from this status)
        // is answered by it, with its own reason.
        guard order.customerID != nil, case .success = AccessPolicy(principal).transition(.cancel, on: order) else {
            return CancelRefundCheck(amount: 0, currency: nil)
        }
        let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: order.storeID), options: options)
        let shifts = self.shifts
        try await database.read { sql in
            try await Self.checkCancelRefund(of: order, amount: amount, by: principal, store: store, shifts, in: sql)
        }
        return CancelRefundCheck(amount: amount, currency: order.currency)
    }

    /// What a cancel gives back of `payments`, an order's: what is left of each completed card
    /// (not cash) payment.
    static func refundedByCancelling(_ payments: [Payment]) -> Int64 {
        payments.filter { $0.method != .cash && ($0.status == .completed || $0.status == .partiallyRefunded) }
            .reduce(0) { $0 + $1.amount - $1.refundedAmount }
    }

    /// Refuses the cancel of `order` by `principal` when it would refund `amount` they may not
    /// (`AccessPolicy.mayRefundByCancelling`, with the store's staff refund limit; a staff member
    /// clocked in at the store, unless `shifts` is nil): 422 `refund_not_allowed`.
    static func checkCancelRefund(
        of order: Order, amount: Int64, by principal: Principal, store: Store, _ shifts: ShiftsRepository?,
        in sql: any SQLDatabase
    ) async throws {
        let refusal = OrderlyError(
            .failedPrecondition,
            "cancelling this order refunds \(amount) of its payments, which is not yours to refund; "
                + "an owner or manager of the store cancels it",
            reason: "refund_not_allowed", details: ["amount": .int(amount)])
        guard AccessPolicy(principal).mayRefundByCancelling(order, amount: amount, staffLimit: store.staffRefundLimit)
        else { throw refusal }
        if principal.role == .staff, let shifts,
            try await shifts.openShift(of: principal.userID, in: sql)?.storeID != order.storeID
        {
            throw refusal
        }
    }

    /// Gives back `amount` of a completed payment (what is left when absent), never more than
    /// is left: refunds of one payment take its lock one at a time, so two racing for the last
    /// of it cannot both succeed. The store's owners and managers refund; a staff member only a
    /// payment they took, up to the store's `staff_refund_limit` (403 beyond), and clocked in
    /// where the store requires it. Restocked units go back to the shelf (`return` entries, by
    /// the catalog), worth no more than the refund pays back. Cash comes out of the refunder's
    /// open shift's drawer. Each refund gets a receipt of its own.
    func refund(_ request: RefundRequest, principal: Principal, idempotencyKey: String) async throws -> Refund {
        var problems = FieldProblems()
        let reason = problems.text(request.reason, "reason", maximumLength: 500)
        _ = problems.integer(request.amount, "amount", in: 1...Payment.maximumAmount, required: false)
        let restock = request.restockLines ?? []
        if restock.count > Payment.maximumItems {
            problems.add("restock_lines", "must hold at most \(Payment.maximumItems) lines")
        }
        var seen: Set<ProductID> = []
        for (index, line) in restock.enumerated() {
            _ = problems.integer(line.quantity, "restock_lines[\(index)].quantity", in: 1...Payment.maximumQuantity)
            if !seen.insert(line.productID).inserted {
                problems.add("restock_lines[\(index)].product_id", "appears in another line; give each product once")
            }
        }
        try problems.check()
        let (payments, refunds, shifts) = (self.payments, self.refunds, self.shifts)
        let id = request.paymentID
        let policy = AccessPolicy(principal)
        // Who may refund is decided by the store's settings, read before the payment is locked;
        // they are applied in the write, so that a repeat is answered from its record.
        guard let read = try await payments.payment(id), policy.canSee(payment: read) else {
            throw OrderlyError(.notFound, "no payment \(id)")
        }
        let store = try await catalog.call(
            CatalogAPI.getStore, ResourceRef(id: read.storeID), options: WireCallOptions(principal: principal))
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.refund:\(id)", request: request
        ) { transaction in
            try await transaction.lock(PaymentsRepository.lock(ofPayment: id))
            guard var payment = try await payments.payment(id, in: transaction.sql), policy.canSee(payment: payment)
            else { throw OrderlyError(.notFound, "no payment \(id)") }
            guard payment.status == .completed || payment.status == .partiallyRefunded else {
                throw OrderlyError(
                    .failedPrecondition, "only a completed payment is refunded; this one is \(payment.status.rawValue)",
                    reason: "illegal_transition",
                    details: [
                        "status": .string(payment.status.rawValue),
                        "allowed": .array(payment.status.next.map { .string($0.rawValue) }),
                    ])
            }
            let left = payment.amount - payment.refundedAmount
            let amount = request.amount ?? left
            guard amount <= left else {
                throw OrderlyError(
                    .failedPrecondition, "\(left) of the payment is left to refund", reason: "refund_exceeds_payment",
                    details: ["amount": .string("must be at most \(left)")])
            }
            try Self.checkRefunder(policy, payment, amount: amount, store)
            try await ShiftsHandlers.checkClockedIn(principal, in: store, shifts, in: transaction.sql)
            var problems = FieldProblems()
            var restocked: Int64 = 0
            for (index, line) in restock.enumerated() {
                guard let item = payment.items.firstIndex(where: { $0.tracked && $0.productID == line.productID })
                else {
                    problems.add("restock_lines[\(index)].product_id", "is not a stock-tracked item of the payment")
                    continue
                }
                let returnable = payment.items[item].quantity - payment.items[item].returnedQuantity
                guard line.quantity <= returnable else {
                    problems.add(
                        "restock_lines[\(index)].quantity", "must be at most \(returnable), the units not yet returned")
                    continue
                }
                payment.items[item].returnedQuantity += line.quantity
                restocked += payment.items[item].unitPrice * line.quantity
            }
            if restocked > amount {
                problems.add(
                    "restock_lines", "are worth \(restocked) at the prices paid, more than the \(amount) refunded")
            }
            try problems.check()
            let refund = try await Self.record(
                amount, of: &payment, reason: reason, restock: restock, by: principal.userID, payments, refunds,
                in: transaction)
            if payment.method == .cash {
                try await ShiftsHandlers.countCash(
                    -amount, by: principal.userID, in: payment.storeID, shifts, in: transaction)
            }
            return refund
        }
    }

    /// Writes a refund of `amount` of `payment` (held under its lock, the amount and lines
    /// checked): the payment's refunded amount and status, the refund with its receipt, and
    /// `payment.refunded`.
    static func record(
        _ amount: Int64, of payment: inout Payment, reason: String, restock: [Reservation.Line], by staff: UserID,
        _ payments: PaymentsRepository, _ refunds: RefundsRepository, in transaction: Transaction
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

    /// Refuses a refund of `amount` of `payment` by `policy`'s caller beyond what `store` lets
    /// them (`AccessPolicy.canRefund`).
    private static func checkRefunder(_ policy: AccessPolicy, _ payment: Payment, amount: Int64, _ store: Store)
        throws(OrderlyError)
    {
        guard policy.canRefund(payment, amount: amount, staffLimit: store.staffRefundLimit) else {
            let limit = store.staffRefundLimit
            throw OrderlyError(
                .permissionDenied,
                limit > 0
                    ? "staff refund payments they took, up to \(limit) at a time; owners and managers refund the rest"
                    : "refunds are for the store's owners and managers")
        }
    }
}
