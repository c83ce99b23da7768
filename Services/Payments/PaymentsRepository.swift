import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// A store user as the payments service knows them.
struct StaffMember: Sendable {
    var id: UserID
    var role: Role
    var storeID: StoreID?
    var name: String
    var active: Bool
}

/// All SQL of the payments service: payments, receipts and the provider reports received, each
/// payment and receipt kept whole as JSON beside the columns queries use.
struct PaymentsRepository: Sendable {
    let database: Database

    func insert(_ payment: Payment, header: ReceiptHeader, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO payments
                (id, store_id, order_id, status, method, staff_id, expires_at, created_at, receipt_header, doc)
            VALUES (\(bind: payment.id.description), \(bind: payment.storeID.description),
                \(bind: payment.orderID?.description), \(bind: payment.status.rawValue),
                \(bind: payment.method.rawValue), \(bind: payment.staffID.description),
                \(bind: payment.expiresAt?.millisecondsSince1970), \(bind: payment.createdAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(header)), \(bind: try StoredDocument.text(payment)))
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

    /// Records a provider's report by its event id; false when it was recorded before.
    func recordProviderEvent(provider: String, id: String, payment: PaymentID, in transaction: Transaction)
        async throws -> Bool
    {
        let seen = try await transaction.sql.raw(
            "SELECT 1 AS seen FROM provider_events WHERE provider = \(bind: provider) AND id = \(bind: id)"
        ).first()
        guard seen == nil else { return false }
        try await transaction.sql.raw(
            """
            INSERT INTO provider_events (provider, id, payment_id, received_at)
            VALUES (\(bind: provider), \(bind: id), \(bind: payment.description), \(bind: Date.nowMilliseconds))
            """
        ).run()
        return true
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

    func insert(_ refund: Refund, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO refunds (id, payment_id, store_id, created_at, doc)
            VALUES (\(bind: refund.id.description), \(bind: refund.paymentID.description),
                \(bind: refund.storeID.description), \(bind: refund.createdAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(refund)))
            """
        ).run()
    }

    /// A page of a store's payments matching `request`, newest first.
    func list(_ request: PaymentListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Payment> {
        try await database.read { sql in
            var query: SQLQueryString =
                "SELECT doc, created_at, id FROM payments WHERE store_id = \(bind: request.storeID.description)"
            if let statuses = request.statuses, !statuses.isEmpty {
                query = query + " AND status IN (" + .boundList(Set(statuses.map(\.rawValue))) + ")"
            }
            if let methods = request.methods, !methods.isEmpty {
                query = query + " AND method IN (" + .boundList(Set(methods.map(\.rawValue))) + ")"
            }
            if let staff = request.staffID { query = query + " AND staff_id = \(bind: staff.description)" }
            if let from = request.from { query = query + " AND created_at >= \(bind: from.millisecondsSince1970)" }
            if let to = request.to { query = query + " AND created_at < \(bind: to.millisecondsSince1970)" }
            let rows = try await sql.raw(query + KeysetCursor.pageClause(after: cursor, limit: limit, descending: true))
                .all()
            let page = try KeysetCursor.page(rows, limit: limit, as: Payment.self)
            return Page(data: page.items, nextCursor: page.next)
        }
    }

    /// A page of a store's receipts, newest first, or the one numbered `number`.
    func receipts(_ request: ReceiptListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Receipt>
    {
        try await database.read { sql in
            var query: SQLQueryString =
                "SELECT doc, number, id FROM receipts WHERE store_id = \(bind: request.storeID.description)"
            if let number = request.number { query = query + " AND number = \(bind: number)" }
            let rows = try await sql.raw(
                query + KeysetCursor.pageClause(after: cursor, limit: limit, descending: true, key: "number")
            ).all()
            let page = try KeysetCursor.page(rows, limit: limit, as: Receipt.self, key: "number")
            return Page(data: page.items, nextCursor: page.next)
        }
    }

    // MARK: Staff and shifts

    /// A user as the identity events tell, unless a newer version is known: kept while of a
    /// store role, forgotten otherwise.
    func remember(_ user: User, in transaction: Transaction) async throws {
        let known = try await transaction.sql.raw(
            "SELECT version FROM staff_members WHERE id = \(bind: user.id.description)"
        ).first()?.decode(column: "version", as: Int64.self)
        if let known, known >= user.version { return }
        try await transaction.sql.raw("DELETE FROM staff_members WHERE id = \(bind: user.id.description)").run()
        guard user.role.isStoreRole else { return }
        try await transaction.sql.raw(
            """
            INSERT INTO staff_members (id, store_id, role, name, active, version)
            VALUES (\(bind: user.id.description), \(bind: user.storeID?.description), \(bind: user.role.rawValue),
                \(bind: user.name), \(bind: user.active ? 1 : 0), \(bind: user.version))
            """
        ).run()
    }

    /// A store user the identity events told of: their role, store and name.
    func staffMember(_ id: UserID, in sql: any SQLDatabase) async throws -> StaffMember? {
        guard
            let row = try await sql.raw(
                "SELECT role, store_id, name, active FROM staff_members WHERE id = \(bind: id.description)"
            ).first(),
            let role = Role(rawValue: try row.decode(column: "role", as: String.self))
        else { return nil }
        return StaffMember(
            id: id, role: role, storeID: try row.decode(column: "store_id", as: String?.self).flatMap(StoreID.init),
            name: try row.decode(column: "name", as: String.self),
            active: try row.decode(column: "active", as: Int64.self) != 0)
    }

    func openShift(of user: UserID, in sql: any SQLDatabase) async throws -> Shift? {
        try await sql.raw(
            "SELECT doc FROM shifts WHERE user_id = \(bind: user.description) AND clocked_out_at IS NULL"
        ).first().map { try StoredDocument.decode(Shift.self, from: $0) }
    }

    func insert(_ shift: Shift, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO shifts (id, store_id, user_id, clocked_in_at, clocked_out_at, doc)
            VALUES (\(bind: shift.id.description), \(bind: shift.storeID.description), \(bind: shift.userID.description),
                \(bind: shift.clockedInAt.millisecondsSince1970), NULL, \(bind: try StoredDocument.text(shift)))
            """
        ).run()
    }

    func update(_ shift: Shift, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE shifts SET clocked_out_at = \(bind: shift.clockedOutAt?.millisecondsSince1970),
                doc = \(bind: try StoredDocument.text(shift))
            WHERE id = \(bind: shift.id.description)
            """
        ).run()
    }

    /// A page of a store's shifts, newest first.
    func shifts(_ request: ShiftListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Shift> {
        try await database.read { sql in
            var query: SQLQueryString =
                "SELECT doc, clocked_in_at, id FROM shifts WHERE store_id = \(bind: request.storeID.description)"
            if let user = request.userID { query = query + " AND user_id = \(bind: user.description)" }
            if let open = request.open {
                query = query + (open ? " AND clocked_out_at IS NULL" : " AND clocked_out_at IS NOT NULL")
            }
            let rows = try await sql.raw(
                query + KeysetCursor.pageClause(after: cursor, limit: limit, descending: true, key: "clocked_in_at")
            ).all()
            let page = try KeysetCursor.page(rows, limit: limit, as: Shift.self, key: "clocked_in_at")
            return Page(data: page.items, nextCursor: page.next)
        }
    }

    /// The open shifts of `users`.
    func openShifts(of users: [UserID]) async throws -> [Shift] {
        guard !users.isEmpty else { return [] }
        return try await database.read { sql in
            try await sql.raw(
                "SELECT doc FROM shifts WHERE clocked_out_at IS NULL AND user_id IN ("
                    + .boundList(Set(users.map(\.description))) + ")"
            ).all().map { try StoredDocument.decode(Shift.self, from: $0) }
        }
    }

    private func document<Value: Decodable>(
        _ type: Value.Type, table: SQLQueryString, id: String, in sql: any SQLDatabase
    ) async throws -> Value? {
        try await sql.raw("SELECT doc FROM " + table + " WHERE id = \(bind: id)").first()
            .map { try StoredDocument.decode(type, from: $0) }
    }
}
