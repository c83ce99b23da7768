internal import Contracts
internal import Domain
internal import Foundation
public import Logging
public import Runtime
internal import SQLKit
public import ServiceLifecycle
internal import Storage
internal import Wire

/// The payments service: payments and their receipts. For now cash payments, recorded as
/// completed when they are taken; the card lifecycle comes later.
public enum PaymentsService {
    public static let name = PaymentsAPI.service
    public static let wirePort = 7203
    public static let adminPort = 9203
    /// The services it calls, with their default addresses.
    public static let upstreams = [CatalogAPI.service: "127.0.0.1:\(7202)", OrdersAPI.service: "127.0.0.1:\(7201)"]

    /// The process's parts, ready for `ServiceRunner`.
    public static func services(settings: ServiceSettings, logger: Logger) async throws -> [any Service] {
        let host = try await ServiceHost.start(
            settings: settings, logger: logger, migrations: PaymentsSchema.migrations)
        let handlers = PaymentHandlers(
            database: host.database, catalog: host.upstream(CatalogAPI.service),
            orders: host.upstream(OrdersAPI.service))
        var router = WireRouter()
        handlers.register(in: &router)
        return host.services(router: router, parts: [])
    }
}

/// The payment methods: validation, store scope, receipt numbering and `payment.completed`.
struct PaymentHandlers: Sendable {
    let database: Database
    let catalog: WireClient
    let orders: WireClient
    let idempotency: IdempotencyStore

    init(database: Database, catalog: WireClient, orders: WireClient) {
        self.database = database
        self.catalog = catalog
        self.orders = orders
        self.idempotency = IdempotencyStore(database: database)
    }

    func register(in router: inout WireRouter) {
        router.register(PaymentsAPI.recordPayment) { draft, context in
            try await record(
                draft, principal: context.requirePrincipal(),
                idempotencyKey: context.requireIdempotencyKey(for: "recording a payment"))
        }
        router.register(PaymentsAPI.getPayment) { ref, context in
            let principal = try context.requirePrincipal()
            guard let payment = try await find(Payment.self, table: "payments", id: ref.id.description),
                principal.canAccess(store: payment.storeID)
            else { throw OrderlyError(.notFound, "no payment \(ref.id)") }
            return payment
        }
        router.register(PaymentsAPI.getReceipt) { ref, context in
            let principal = try context.requirePrincipal()
            guard let receipt = try await find(Receipt.self, table: "receipts", id: ref.id.description),
                principal.canAccess(store: receipt.storeID)
            else { throw OrderlyError(.notFound, "no receipt \(ref.id)") }
            return receipt
        }
    }

    func record(_ draft: PaymentDraft, principal: Principal, idempotencyKey: String) async throws -> Payment {
        let storeID = try principal.targetStore(draft.storeID)
        var problems = FieldProblems()
        let subtotal = problems.integer(draft.amount, "amount", in: 0...10_000_000_000) ?? 0
        let tip = problems.integer(draft.tip ?? 0, "tip", in: 0...10_000_000_000) ?? 0
        if draft.method == nil { problems.add("method", "is required") }
        if subtotal + tip == 0 { problems.add("amount", "must be more than 0 with the tip") }
        try problems.check()
        guard draft.method == .cash else {
            throw OrderlyError(.unimplemented, "only cash payments can be recorded so far")
        }
        let options = WireCallOptions(principal: principal)
        let store = try await catalog.call(CatalogAPI.getStore, ResourceRef(id: storeID), options: options)
        if let orderID = draft.orderID {
            let order = try await orders.call(OrdersAPI.getOrder, ResourceRef(id: orderID), options: options)
            guard order.storeID == storeID else { throw OrderlyError(.notFound, "no order \(orderID)") }
        }
        return try await idempotency.write(key: idempotencyKey, scope: "payments.record:\(storeID)", request: draft) {
            transaction in
            let now = Date.currentMillisecond
            let paymentID = PaymentID()
            let receiptID = ReceiptID()
            let payment = Payment(
                id: paymentID, storeID: storeID, orderID: draft.orderID, subtotal: subtotal, tip: tip,
                amount: subtotal + tip, currency: store.currency, method: .cash, status: .completed,
                staffID: principal.userID, receiptID: receiptID, refundedAmount: 0, createdAt: now, completedAt: now)
            let number = try await transaction.nextSequence("receipts.number.\(storeID)")
            let receipt = Receipt(
                id: receiptID, number: number, storeID: storeID, paymentID: paymentID, orderID: draft.orderID,
                subtotal: subtotal, tip: tip, total: subtotal + tip, currency: store.currency, method: .cash,
                staffID: principal.userID, issuedAt: now,
                text: Self.receiptText(store: store, number: number, payment: payment))
            try await transaction.sql.raw(
                """
                INSERT INTO payments (id, store_id, order_id, status, created_at, doc)
                VALUES (\(bind: paymentID.description), \(bind: storeID.description),
                    \(bind: draft.orderID?.description), \(bind: payment.status.rawValue),
                    \(bind: now.millisecondsSince1970), \(bind: try StoredDocument.text(payment)))
                """
            ).run()
            try await transaction.sql.raw(
                """
                INSERT INTO receipts (id, store_id, number, payment_id, issued_at, doc)
                VALUES (\(bind: receiptID.description), \(bind: storeID.description), \(bind: number),
                    \(bind: paymentID.description), \(bind: now.millisecondsSince1970),
                    \(bind: try StoredDocument.text(receipt)))
                """
            ).run()
            transaction.publish(
                DomainEvent(
                    type: "payment.completed", storeID: storeID, aggregateID: paymentID.description, occurredAt: now,
                    payload: try EventPayload(encoding: payment)))
            return payment
        }
    }

    private func find<Value: Decodable>(_ type: Value.Type, table: SQLQueryString, id: String) async throws -> Value? {
        try await database.read { sql in
            try await sql.raw("SELECT doc FROM " + table + " WHERE id = \(bind: id)").first()
                .map { try StoredDocument.decode(type, from: $0) }
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
