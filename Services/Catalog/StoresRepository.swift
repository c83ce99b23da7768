import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The catalog's SQL of stores, with their search index (`StoreSearch`) kept in step.
struct StoresRepository: Sendable {
    let database: Database

    func insert(_ store: Store, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO stores (id, name, version, created_at, updated_at, doc)
            VALUES (\(bind: store.id.description), \(bind: store.name), \(bind: store.version),
                \(bind: store.createdAt.millisecondsSince1970), \(bind: store.updatedAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(store)))
            """
        ).run()
        try await StoreSearch.index(store, in: transaction)
    }

    /// Replaces a store, provided nobody changed it since it was read at `previousVersion`.
    func update(_ store: Store, previousVersion: Int64, in transaction: Transaction) async throws -> Bool {
        let row = try await transaction.sql.raw(
            """
            UPDATE stores SET name = \(bind: store.name), version = \(bind: store.version),
                updated_at = \(bind: store.updatedAt.millisecondsSince1970), doc = \(bind: try StoredDocument.text(store))
            WHERE id = \(bind: store.id.description) AND version = \(bind: previousVersion)
            RETURNING id
            """
        ).first()
        guard row != nil else { return false }
        try await StoreSearch.index(store, in: transaction)
        return true
    }

    func find(_ id: StoreID, in sql: any SQLDatabase) async throws -> Store? {
        try await sql.raw("SELECT doc FROM stores WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Store.self, from: $0) }
    }

    /// The stores of `source` (`stores WHERE …`), in creation order.
    func list(_ source: SQLQueryString, after cursor: KeysetCursor?, limit: Int, counting: Bool = false) async throws
        -> Page<Store>
    {
        try await database.read { sql in
            let page = try await KeysetCursor.list(
                Store.self, from: source, after: cursor, limit: limit, counting: counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }
}
