import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The payments service's Wire methods: each decodes its request, asks `AccessPolicy`,
/// validates, calls the repository and publishes `payment.completed`.
struct PaymentsHandlers: Sendable {
    let database: Database
    let catalog: any WireCaller
    let orders: any WireCaller
    let payments: PaymentsRepository
    let idempotency: IdempotencyStore

    init(database: Database, catalog: any WireCaller, orders: any WireCaller) {
        self.database = database
        self.catalog = catalog
        self.orders = orders
        self.payments = PaymentsRepository(database: database)
        self.idempotency = IdempotencyStore(database: database)
    }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.recordPayment) { draft, context in
            try await record(
                draft, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "recording a payment"))
        }
        router.register(PaymentsAPI.getPayment) { ref, context in
            guard let payment = try await payments.payment(ref.id),
                AccessPolicy(try context.requirePrincipal()).canSee(payment: payment)
            else { throw OrderlyError(.notFound, "no payment \(ref.id)") }
            return payment
        }
        router.register(PaymentsAPI.getReceipt) { ref, context in
            guard let receipt = try await payments.receipt(ref.id),
                AccessPolicy(try context.requirePrincipal()).canSee(receipt: receipt)
            else { throw OrderlyError(.notFound, "no receipt \(ref.id)") }
            return receipt
        }
    }

    func record(_ draft: PaymentDraft, principal: Principal, idempotencyKey: String) async throws -> Payment {
        let storeID = try AccessPolicy(principal).storeForWriting(draft.storeID)
        var problems = FieldProblems()
        let subtotal = problems.integer(draft.amount, "amount", in: 1...10_000_000_000) ?? 0
        let tip = problems.integer(draft.tip ?? 0, "tip", in: 0...10_000_000_000) ?? 0
        switch draft.method {
        case nil: problems.add("method", "is required")
        case .cash?: break
        case .some: problems.add("method", "must be cash: other methods arrive with the payment lifecycle")
        }
        try problems.check()
        let options = WireCallOptions(principal: principal)
        let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: storeID), options: options)
        if let orderID = draft.orderID {
            let order = try await orders.call(OrdersAPI.getOrder, ResourceRef(id: orderID), options: options)
            guard order.storeID == storeID else { throw OrderlyError(.notFound, "no order \(orderID)") }
        }
        let payments = self.payments
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "payments.record:\(storeID)", request: draft
        ) {
            transaction in
            let now = Date.currentMillisecond
            let receiptID = ReceiptID()
            let payment = Payment(
                id: PaymentID(), storeID: storeID, orderID: draft.orderID, subtotal: subtotal, tip: tip,
                amount: subtotal + tip, currency: store.currency, method: .cash, status: .completed,
                staffID: principal.userID, receiptID: receiptID, refundedAmount: 0, createdAt: now, completedAt: now)
            let number = try await transaction.nextSequence("receipts.number.\(storeID)")
            let receipt = Receipt(
                id: receiptID, number: number, storeID: storeID, paymentID: payment.id, orderID: draft.orderID,
                subtotal: subtotal, tip: tip, total: subtotal + tip, currency: store.currency, method: .cash,
                staffID: principal.userID, issuedAt: now,
                text: Self.receiptText(store: store, number: number, payment: payment))
            try await payments.insert(payment, in: transaction)
            try await payments.insert(receipt, in: transaction)
            transaction.publish(try PaymentsEvents.completed(payment))
            return payment
        }
    }

    /// The receipt as printed: store, number, amounts, method.
    static func receiptText(store: Store, number: Int64, payment: Payment) -> String {
        func money(_ minorUnits: Int64) -> String {
            Money(minorUnits: minorUnits, currency: payment.currency).description
        }
        var lines = [store.name]
        if let address = store.address { lines.append(address) }
        lines += [
            "Receipt #\(number)", RFC3339.format(payment.createdAt), "",
            "Subtotal  \(money(payment.subtotal))", "Tip       \(money(payment.tip))",
            "Total     \(money(payment.amount))", "Paid      \(payment.method.rawValue)",
        ]
        return lines.joined(separator: "\n")
    }
}
