import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of refunds.
struct RefundsRepository: Sendable {
    let database: Database

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
}
