import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// All SQL of the catalog: stores, products and the stock ledger.
struct CatalogRepository: Sendable {
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
        return row != nil
    }

    func find(_ id: StoreID, in sql: any SQLDatabase) async throws -> Store? {
        try await sql.raw("SELECT doc FROM stores WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Store.self, from: $0) }
    }

    /// The stores in `scope`, in creation order.
    func list(_ scope: StoreScope, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Store> {
        try await database.read { sql in
            let query: SQLQueryString = "SELECT doc, created_at, id FROM stores WHERE " + scope.condition(on: "id")
            let rows = try await sql.raw(query + KeysetCursor.pageClause(after: cursor, limit: limit)).all()
            let page = try KeysetCursor.page(rows, limit: limit, as: Store.self)
            return Page(data: page.items, nextCursor: page.next)
        }
    }

    func insert(_ product: Product, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO products (id, store_id, sku, barcode, version, created_at, updated_at, doc)
            VALUES (\(bind: product.id.description), \(bind: product.storeID.description), \(bind: product.sku),
                \(bind: product.barcode), \(bind: product.version), \(bind: product.createdAt.millisecondsSince1970),
                \(bind: product.updatedAt.millisecondsSince1970), \(bind: try StoredDocument.text(product)))
            """
        ).run()
    }

    /// Replaces a product, provided nobody changed it since it was read at `previousVersion`.
    func update(_ product: Product, previousVersion: Int64, in transaction: Transaction) async throws -> Bool {
        let row = try await transaction.sql.raw(
            """
            UPDATE products SET sku = \(bind: product.sku), barcode = \(bind: product.barcode),
                version = \(bind: product.version), updated_at = \(bind: product.updatedAt.millisecondsSince1970),
                doc = \(bind: try StoredDocument.text(product))
            WHERE id = \(bind: product.id.description) AND version = \(bind: previousVersion)
            RETURNING id
            """
        ).first()
        return row != nil
    }

    func find(_ id: ProductID, in sql: any SQLDatabase) async throws -> Product? {
        try await sql.raw("SELECT doc FROM products WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Product.self, from: $0) }
    }

    /// Which of `product`'s sku and barcode another product of its store has already, as the
    /// problems to name.
    func takenCodes(of product: Product, in sql: any SQLDatabase) async throws -> [String: String] {
        var taken: [String: String] = [:]
        for (field, value) in [("sku", product.sku), ("barcode", product.barcode)] {
            guard let value else { continue }
            let row = try await sql.raw(
                """
                SELECT id FROM products WHERE store_id = \(bind: product.storeID.description)
                AND \(unsafeRaw: field) = \(bind: value) AND id <> \(bind: product.id.description)
                """
            ).first()
            if row != nil { taken[field] = "is already used by another product of the store" }
        }
        return taken
    }

    func insert(_ entry: StockLedgerEntry, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO stock_ledger (seq, id, product_id, created_at, doc)
            VALUES (\(bind: entry.seq), \(bind: entry.id.lowercasedText), \(bind: entry.productID.description),
                \(bind: entry.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(entry)))
            """
        ).run()
    }

    /// A product's ledger, oldest first.
    func ledger(of product: ProductID, in sql: any SQLDatabase) async throws -> [StockLedgerEntry] {
        try await sql.raw(
            "SELECT doc FROM stock_ledger WHERE product_id = \(bind: product.description) ORDER BY seq"
        ).all().map { try StoredDocument.decode(StockLedgerEntry.self, from: $0) }
    }
}
