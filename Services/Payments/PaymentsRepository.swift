import Domain
import Foundation
import SQLKit
import Storage

/// All SQL of the payments service: payments and receipts, each kept whole as JSON beside the
/// columns queries use.
struct PaymentsRepository: Sendable {
    let database: Database

    func insert(_ payment: Payment, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO payments (id, store_id, order_id, status, created_at, doc)
            VALUES (\(bind: payment.id.description), \(bind: payment.storeID.description),
                \(bind: payment.orderID?.description), \(bind: payment.status.rawValue),
                \(bind: payment.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(payment)))
            """
        ).run()
    }

    func insert(_ receipt: Receipt, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO receipts (id, store_id, number, payment_id, issued_at, doc)
            VALUES (\(bind: receipt.id.description), \(bind: receipt.storeID.description), \(bind: receipt.number),
                \(bind: receipt.paymentID.description), \(bind: receipt.issuedAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(receipt)))
            """
        ).run()
    }

    func payment(_ id: PaymentID) async throws -> Payment? {
        try await document(Payment.self, table: "payments", id: id.description)
    }

    func receipt(_ id: ReceiptID) async throws -> Receipt? {
        try await document(Receipt.self, table: "receipts", id: id.description)
    }

    private func document<Value: Decodable>(_ type: Value.Type, table: SQLQueryString, id: String) async throws
        -> Value?
    {
        try await database.read { sql in
            try await sql.raw("SELECT doc FROM " + table + " WHERE id = \(bind: id)").first()
                .map { try StoredDocument.decode(type, from: $0) }
        }
    }
}
