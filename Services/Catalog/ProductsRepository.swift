import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The catalog's SQL of products and their stock ledger.
struct ProductsRepository: Sendable {
    let database: Database

    func insert(_ product: Product, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO products (id, store_id, sku, barcode, category, active, search, stock_status, change_seq,
                version, created_at, updated_at, doc)
            VALUES (\(bind: product.id.description), \(bind: product.storeID.description), \(bind: product.sku),
                \(bind: product.barcode), \(bind: product.category), \(bind: product.active ? 1 : 0),
                \(bind: Self.searchText(product)), \(bind: product.stockStatus.rawValue),
                \(bind: try await Self.nextChange(of: product, in: transaction)), \(bind: product.version),
                \(bind: product.createdAt.millisecondsSince1970), \(bind: product.updatedAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(product)))
            """
        ).run()
    }

    /// Replaces a product, provided nobody changed it since it was read at `previousVersion`.
    func update(_ product: Product, previousVersion: Int64, in transaction: Transaction) async throws -> Bool {
        let row = try await transaction.sql.raw(
            """
            UPDATE products SET sku = \(bind: product.sku), barcode = \(bind: product.barcode),
                category = \(bind: product.category), active = \(bind: product.active ? 1 : 0),
                search = \(bind: Self.searchText(product)), stock_status = \(bind: product.stockStatus.rawValue),
                change_seq = \(bind: try await Self.nextChange(of: product, in: transaction)),
                version = \(bind: product.version), updated_at = \(bind: product.updatedAt.millisecondsSince1970),
                doc = \(bind: try StoredDocument.text(product))
            WHERE id = \(bind: product.id.description) AND version = \(bind: previousVersion)
            RETURNING id
            """
        ).first()
        return row != nil
    }

    /// Sets the list columns of a product stored before they existed (migration 3).
    static func fill(_ product: Product, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE products SET category = \(bind: product.category), active = \(bind: product.active ? 1 : 0),
                search = \(bind: Self.searchText(product)), stock_status = \(bind: product.stockStatus.rawValue),
                change_seq = \(bind: try await Self.nextChange(of: product, in: transaction))
            WHERE id = \(bind: product.id.description)
            """
        ).run()
    }

    /// The number of a change to one of a store's products: the store's change feed is ordered
    /// by it. One sequence per store, so that stores do not wait on each other's writes.
    private static func nextChange(of product: Product, in transaction: Transaction) async throws -> Int64 {
        try await transaction.nextSequence("catalog.products.changes:\(product.storeID)")
    }

    /// What `q` matches: name, sku and barcode, lower-cased.
    static func searchText(_ product: Product) -> String {
        [product.name, product.sku, product.barcode].compactMap { $0 }.joined(separator: " ").lowercased()
    }

    /// The store's products that match every filter of `request`, in creation order.
    func list(_ request: ProductListRequest, after cursor: KeysetCursor?, limit: Int) async throws -> Page<Product> {
        try await database.read { sql in
            var source: SQLQueryString = "products WHERE store_id = \(bind: request.storeID.description)"
            if let category = request.category { source = source + " AND category = \(bind: category)" }
            if let barcode = request.barcode { source = source + " AND barcode = \(bind: barcode)" }
            if let active = request.active { source = source + " AND active = \(bind: active ? 1 : 0)" }
            if let search = request.search.flatMap(SearchPattern.containing) {
                source = source + " AND search LIKE \(bind: search) ESCAPE '\\'"
            }
            if let statuses = request.stockStatuses, !statuses.isEmpty {
                source = source + " AND stock_status IN (" + .boundList(Set(statuses.map(\.rawValue))) + ")"
            }
            let page = try await KeysetCursor.list(
                Product.self, from: source, after: cursor, limit: limit, counting: request.page.counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// The store's active products (its menu) by category (those without one last), then the
    /// oldest first: the first `limit` of them, while they take no more than `maximumBytes` as
    /// stored; and whether there are more.
    func activeProducts(of store: StoreID, limit: Int, maximumBytes: Int) async throws
        -> (products: [Product], more: Bool)
    {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT doc FROM products WHERE store_id = \(bind: store.description) AND active = 1
                ORDER BY category IS NULL, category, created_at, id LIMIT \(bind: limit + 1)
                """
            ).all()
            var (products, bytes): ([Product], Int) = ([], 0)
            for row in rows.prefix(limit) {
                let doc = try row.decode(column: "doc", as: String.self)
                bytes += doc.utf8.count
                guard bytes <= maximumBytes else { return (products, true) }
                products.append(try StoredDocument.decode(Product.self, from: doc))
            }
            return (products, rows.count > limit)
        }
    }

    /// Whether some product of the store carries `category`.
    func hasCategory(_ category: String, in store: StoreID) async throws -> Bool {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id FROM products WHERE store_id = \(bind: store.description) AND category = \(bind: category)
                LIMIT 1
                """
            ).first() != nil
        }
    }

    /// The store's products changed after change `since`, oldest change first; also the last
    /// change read and whether more follow.
    func changes(of store: StoreID, since: Int64, limit: Int) async throws -> (
        products: [Product], last: Int64, hasMore: Bool
    ) {
        try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT doc, change_seq FROM products WHERE store_id = \(bind: store.description)
                AND change_seq > \(bind: since) ORDER BY change_seq LIMIT \(bind: limit + 1)
                """
            ).all()
            let page = try KeysetCursor.changes(rows, limit: limit, since: since, as: Product.self)
            return (page.items, page.last, page.hasMore)
        }
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

    /// Records `product`'s quantity, changed from `previousQuantity`, as its next ledger entry.
    @discardableResult
    func appendLedger(
        _ product: Product, from previousQuantity: Int64, reason: StockReason, notes: String? = nil,
        reference: String? = nil, by user: UserID, at time: Date, clientCreatedAt: Date? = nil,
        in transaction: Transaction
    ) async throws -> StockLedgerEntry {
        let entry = StockLedgerEntry(
            id: UUID.random(), seq: try await transaction.nextSequence("stock_ledger"), productID: product.id,
            storeID: product.storeID, previousQuantity: previousQuantity, newQuantity: product.quantity,
            reason: reason, notes: notes, reference: reference, createdBy: user, createdAt: time,
            clientCreatedAt: clientCreatedAt)
        try await insert(entry, in: transaction)
        return entry
    }

    private func insert(_ entry: StockLedgerEntry, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO stock_ledger (seq, id, product_id, store_id, reason, created_at, doc)
            VALUES (\(bind: entry.seq), \(bind: entry.id.lowercasedText), \(bind: entry.productID.description),
                \(bind: entry.storeID.description), \(bind: entry.reason.rawValue),
                \(bind: entry.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(entry)))
            """
        ).run()
    }

    /// A page of a product's ledger, oldest entry first.
    func ledger(of product: ProductID, after cursor: KeysetCursor?, limit: Int, counting: Bool) async throws
        -> Page<StockLedgerEntry>
    {
        try await database.read { sql in
            let page = try await KeysetCursor.list(
                StockLedgerEntry.self, from: "stock_ledger WHERE product_id = \(bind: product.description)", key: "seq",
                after: cursor, limit: limit, counting: counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// A page of the store's ledger matching `request`, newest first, each entry with its
    /// product's name as it is now.
    func ledger(_ request: StoreStockLedgerRequest, after cursor: KeysetCursor?, limit: Int) async throws
        -> Page<StockLedgerEntry>
    {
        try await database.read { sql in
            var source: SQLQueryString = "stock_ledger WHERE store_id = \(bind: request.storeID.description)"
            if let product = request.productID { source = source + " AND product_id = \(bind: product.description)" }
            if let reasons = request.reasons, !reasons.isEmpty {
                source = source + " AND reason IN (" + .boundList(Set(reasons.map(\.rawValue))) + ")"
            }
            if let from = request.from { source = source + " AND created_at >= \(bind: from.millisecondsSince1970)" }
            if let to = request.to { source = source + " AND created_at < \(bind: to.millisecondsSince1970)" }
            var page = try await KeysetCursor.list(
                StockLedgerEntry.self, from: source, key: "seq", descending: true, after: cursor, limit: limit,
                counting: request.page.counting, in: sql)
            let ids = Set(page.items.map(\.productID.description))
            var names: [String: String] = [:]
            if !ids.isEmpty {
                for row in try await sql.raw("SELECT doc FROM products WHERE id IN (" + .boundList(ids) + ")").all() {
                    let product = try StoredDocument.decode(Product.self, from: row)
                    names[product.id.description] = product.name
                }
            }
            for index in page.items.indices {
                page.items[index].productName = names[page.items[index].productID.description]
            }
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }

    /// The products of `lines`, each locked for the rest of the transaction, taken in id order.
    func lockedProducts(of lines: [Reservation.Line], in transaction: Transaction) async throws -> [ProductID: Product]
    {
        let ids = Set(lines.map(\.productID))
        try await transaction.lock(ids.map(Lock.product))
        var products: [ProductID: Product] = [:]
        for id in ids { products[id] = try await find(id, in: transaction.sql) }
        return products
    }
}
