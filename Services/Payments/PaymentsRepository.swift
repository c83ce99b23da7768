import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of payments and their receipts, each kept whole as JSON beside the
/// columns queries use.
struct PaymentsRepository: Sendable {
    let database: Database

    func insert(_ payment: Payment, header: ReceiptHeader, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO payments
                (id, store_id, order_id, status, method, staff_id, expires_at, created_at, receipt_header, change_seq,
                customer_user_id, doc)
            VALUES (\(bind: payment.id.description), \(bind: payment.storeID.description),
                \(bind: payment.orderID?.description), \(bind: payment.status.rawValue),
                \(bind: payment.method.rawValue), \(bind: payment.staffID.description),
                \(bind: payment.expiresAt?.millisecondsSince1970), \(bind: payment.createdAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(header)),
                \(bind: try await transaction.nextSequence(Self.changes(of: payment.storeID.description))),
                \(bind: payment.customerUserID?.description), \(bind: try StoredDocument.text(payment)))
            """
        ).run()
    }

    /// What the payment's receipt prints of its store; a payment taken before the lifecycle
    /// has none, and its receipt prints the store's id.
    func header(of id: PaymentID, in sql: any SQLDatabase) async throws -> ReceiptHeader? {
        guard
            let text = try await sql.raw(
                "SELECT receipt_header FROM payments WHERE id = \(bind: id.description)"
            ).first()?.decode(column: "receipt_header", as: String?.self)
        else { return nil }
        return try StoredDocument.decode(ReceiptHeader.self, from: text)
    }

    /// Writes a changed payment; callers hold its lock (`payments.payment:<id>`).
    func update(_ payment: Payment, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE payments SET status = \(bind: payment.status.rawValue),
                expires_at = \(bind: payment.expiresAt?.millisecondsSince1970),
                customer_user_id = \(bind: payment.customerUserID?.description),
                change_seq = \(bind: try await transaction.nextSequence(Self.changes(of: payment.storeID.description))),
                doc = \(bind: try StoredDocument.text(payment))
            WHERE id = \(bind: payment.id.description)
            """
        ).run()
    }

    func insert(_ receipt: Receipt, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO receipts (id, store_id, number, kind, payment_id, issued_at, doc)
            VALUES (\(bind: receipt.id.description), \(bind: receipt.storeID.description), \(bind: receipt.number),
                \(bind: receipt.kind.rawValue), \(bind: receipt.paymentID.description),
                \(bind: receipt.issuedAt.millisecondsSince1970), \(bind: try StoredDocument.text(receipt)))
            """
        ).run()
    }

    /// The payments made out to `user`, or that they took (a courier's cash at the door), oldest
    /// first, after `cursor`: what their export holds of the payments service.
    func payments(of user: UserID, after cursor: KeysetCursor?, limit: Int, counting: Bool) async throws
        -> Page<Payment>
    {
        try await database.read { sql in
            let source: SQLQueryString = """
                payments
                WHERE (customer_user_id = \(bind: user.description) OR staff_id = \(bind: user.description))
                """
            let page = try await KeysetCursor.list(
                Payment.self, from: source, after: cursor, limit: limit, counting: counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// The payments for `order`.
    func payments(of order: OrderID, in sql: any SQLDatabase) async throws -> [Payment] {
        try await sql.raw("SELECT doc FROM payments WHERE order_id = \(bind: order.description)").all()
            .map { try StoredDocument.decode(Payment.self, from: $0) }
    }

    /// The pending payments whose time ran out at `now`, oldest due first.
    func due(at now: Date, limit: Int) async throws -> [PaymentID] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id FROM payments WHERE status = 'pending' AND expires_at <= \(bind: now.millisecondsSince1970)
                ORDER BY expires_at LIMIT \(bind: limit)
                """
            ).all().map { row in
                guard let id = PaymentID(try row.decode(column: "id", as: String.self)) else {
                    throw StorageError.unexpected("a payment's id could not be read")
                }
                return id
            }
        }
    }

    func payment(_ id: PaymentID) async throws -> Payment? {
        try await database.read { try await payment(id, in: $0) }
    }

    func payment(_ id: PaymentID, in sql: any SQLDatabase) async throws -> Payment? {
        try await document(Payment.self, table: "payments", id: id.description, in: sql)
    }

    func receipt(_ id: ReceiptID) async throws -> Receipt? {
        try await database.read { try await receipt(id, in: $0) }
    }

    func receipt(_ id: ReceiptID, in sql: any SQLDatabase) async throws -> Receipt? {
        try await document(Receipt.self, table: "receipts", id: id.description, in: sql)
    }

    /// A page of a store's payments matching `request`, newest first.
    func list(_ request: PaymentListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Payment> {
        try await database.read { sql in
            var source: SQLQueryString = "payments WHERE store_id = \(bind: request.storeID.description)"
            if let statuses = request.statuses, !statuses.isEmpty {
                source = source + " AND status IN (" + .boundList(Set(statuses.map(\.rawValue))) + ")"
            }
            if let methods = request.methods, !methods.isEmpty {
                source = source + " AND method IN (" + .boundList(Set(methods.map(\.rawValue))) + ")"
            }
            if let staff = request.staffID { source = source + " AND staff_id = \(bind: staff.description)" }
            if let from = request.from { source = source + " AND created_at >= \(bind: from.millisecondsSince1970)" }
            if let to = request.to { source = source + " AND created_at < \(bind: to.millisecondsSince1970)" }
            let page = try await KeysetCursor.list(
                Payment.self, from: source, descending: true, after: cursor, limit: limit,
                counting: request.page.counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// A page of a store's receipts, newest first, or the one numbered `number`; with `staff`,
    /// only those of the payments they took.
    func receipts(_ request: ReceiptListRequest, takenBy staff: UserID?, after cursor: KeysetCursor?, limit: Int)
        async throws -> Page<Receipt>
    {
        try await database.read { sql in
            var source: SQLQueryString = "receipts WHERE store_id = \(bind: request.storeID.description)"
            if let number = request.number { source = source + " AND number = \(bind: number)" }
            if let staff {
                source =
                    source + " AND payment_id IN (SELECT id FROM payments WHERE store_id = "
                    + "\(bind: request.storeID.description) AND staff_id = \(bind: staff.description))"
            }
            let page = try await KeysetCursor.list(
                Receipt.self, from: source, key: "number", descending: true, after: cursor, limit: limit,
                counting: request.page.counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// The store's payments written after `since` (a `change_seq`), oldest change first; with
    /// `staff`, only those they took.
    func changes(of store: StoreID, takenBy staff: UserID?, since: Int64, limit: Int) async throws -> (
        payments: [Payment], last: Int64, hasMore: Bool
    ) {
        try await database.read { sql in
            var query: SQLQueryString =
                "SELECT doc, change_seq FROM payments WHERE store_id = \(bind: store.description) AND change_seq > \(bind: since)"
            if let staff { query = query + " AND staff_id = \(bind: staff.description)" }
            let rows = try await sql.raw(query + " ORDER BY change_seq LIMIT \(bind: limit + 1)").all()
            let page = try KeysetCursor.changes(rows, limit: limit, since: since, as: Payment.self)
            return (page.items, page.last, page.hasMore)
        }
    }

    /// The sequence numbering the writes of a store's payments (`change_seq`).
    static func changes(of store: String) -> String { "payments.changes:" + store }

    private func document<Value: Decodable>(
        _ type: Value.Type, table: SQLQueryString, id: String, in sql: any SQLDatabase
    ) async throws -> Value? {
        try await sql.raw("SELECT doc FROM " + table + " WHERE id = \(bind: id)").first()
            .map { try StoredDocument.decode(type, from: $0) }
    }
}
