import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of the stores' NFC cards, each kept whole as JSON beside the
/// columns lookups and lists use.
struct CardsRepository: Sendable {
    let database: Database

    func insert(_ card: Card, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO cards (id, store_id, uid, customer_id, status, created_at, doc)
            VALUES (\(bind: card.id.description), \(bind: card.storeID.description), \(bind: card.uid),
                \(bind: card.customerID?.description), \(bind: card.status.rawValue),
                \(bind: card.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(card)))
            """
        ).run()
    }

    /// Writes a changed card; callers hold its lock (`payments.card:<id>`).
    func update(_ card: Card, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE cards SET customer_id = \(bind: card.customerID?.description),
                status = \(bind: card.status.rawValue), doc = \(bind: try StoredDocument.text(card))
            WHERE id = \(bind: card.id.description)
            """
        ).run()
    }

    func find(_ id: CardID, in sql: any SQLDatabase) async throws -> Card? {
        try await sql.raw("SELECT doc FROM cards WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Card.self, from: $0) }
    }

    /// The store's card with `uid` (normalized, `Card.normalizedUID`).
    func find(uid: String, in store: StoreID, in sql: any SQLDatabase) async throws -> Card? {
        try await sql.raw(
            "SELECT doc FROM cards WHERE store_id = \(bind: store.description) AND uid = \(bind: uid)"
        ).first().map { try StoredDocument.decode(Card.self, from: $0) }
    }

    /// The cards linked to `customer`.
    func cards(of customer: CustomerID, in sql: any SQLDatabase) async throws -> [Card] {
        try await sql.raw("SELECT doc FROM cards WHERE customer_id = \(bind: customer.description)").all()
            .map { try StoredDocument.decode(Card.self, from: $0) }
    }

    /// A page of a store's cards, newest first, filtered by status and customer.
    func list(_ request: CardListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Card> {
        try await database.read { sql in
            var source: SQLQueryString = "cards WHERE store_id = \(bind: request.storeID.description)"
            if let statuses = request.statuses, !statuses.isEmpty {
                source = source + " AND status IN (" + .boundList(Set(statuses.map(\.rawValue))) + ")"
            }
            if let customer = request.customerID {
                source = source + " AND customer_id = \(bind: customer.description)"
            }
            let page = try await KeysetCursor.list(
                Card.self, from: source, descending: true, after: cursor, limit: limit,
                counting: request.page.counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }
}
