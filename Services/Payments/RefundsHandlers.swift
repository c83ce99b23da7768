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

    var book: PaymentBook { PaymentBook(database: database) }
    var payments: PaymentsRepository { book.payments }
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
    /// may not refund it (`PaymentBook.checkCancelRefund`); an order the caller
    /// cannot see is 404, as the orders service would answer, and a cancel it would refuse for
    /// another reason refunds nothing here (0), so that its own answer follows.
    func checkCancelRefund(_ id: OrderID, principal: Principal) async throws -> CancelRefundCheck {
        let payments = self.payments
        let amount = PaymentBook.refundedByCancelling(
            try await database.read { try await payments.payments(of: id, in: $0) })
        guard amount > 0 else { return CancelRefundCheck(amount: 0, currency: nil) }
        let options = WireCallOptions(principal: principal)
        let order = try await orders.call(OrdersAPI.getOrder, ResourceRef(id: id), options: options)
        // A cancel the orders service refuses anyway (not theirs to do, or not from this status)
        // is answered by it, with its own reason.
        guard order.customerID != nil, case .success = AccessPolicy(principal).transition(.cancel, on: order) else {
            return CancelRefundCheck(amount: 0, currency: nil)
        }
        let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: order.storeID), options: options)
        let book = self.book
        try await database.read { sql in
            try await book.checkCancelRefund(
                of: order, amount: amount, by: principal, store: store, checkingShift: true, in: sql)
        }
        return CancelRefundCheck(amount: amount, currency: order.currency)
    }

    /// Gives back `amount` of a completed payment (what is left when absent), never more than
    /// is left: refunds of one payment take its lock one at a time, so two racing for the last
    /// of it cannot both succeed. The store's owners and managers refund; a staff member only a
    /// payment they took, up to the store's `staff_refund_limit` (403 beyond), and clocked in
    /// where the store requires it. Restocked units go back to the shelf (`return` entries, by
    /// the catalog), worth no more than the refund pays back. Cash comes out of the refunder's
    /// open shift's drawer. Each refund gets a receipt of its own.
    func refund(_ request: RefundRequest, principal: Principal, idempotencyKey: String) async throws -> Refund {
        let valid = try request.validated()
        let restock = valid.restockLines
        let (payments, book) = (self.payments, self.book)
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
            try await transaction.lock(.payment(id))
            guard var payment = try await payments.payment(id, in: transaction.sql), policy.canSee(payment: payment)
            else { throw OrderlyError(.notFound, "no payment \(id)") }
            guard payment.status == .completed || payment.status == .partiallyRefunded else {
                throw OrderlyError(
                    .illegalTransition, "only a completed payment is refunded; this one is \(payment.status.rawValue)",
                    details: [
                        "status": .string(payment.status.rawValue),
                        "allowed": .array(payment.status.next.map { .string($0.rawValue) }),
                    ])
            }
            let left = payment.amount - payment.refundedAmount
            let amount = valid.amount ?? left
            guard amount <= left else {
                throw OrderlyError(
                    .refundExceedsPayment, "\(left) of the payment is left to refund",
                    details: ["amount": .string("must be at most \(left)")])
            }
            try Self.checkRefunder(policy, payment, amount: amount, store)
            try await book.checkClockedIn(principal, in: store, in: transaction.sql)
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
            let refund = try await book.refund(
                amount, of: &payment, reason: valid.reason, restock: restock, by: principal.userID, in: transaction)
            if payment.method == .cash {
                try await book.countCash(-amount, by: principal.userID, in: payment.storeID, in: transaction)
            }
            return refund
        }
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
