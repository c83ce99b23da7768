import Domain
import SQLKit
import Storage

/// The catalog's tables. `doc` holds the whole store, product or ledger entry as JSON; the other
/// columns are what queries filter and sort on.
enum CatalogSchema {
    static let migrations = [
        Migration(
            1, "stores",
            sql: [
                """
                CREATE TABLE stores (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    version BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX stores_by_creation ON stores (created_at, id)",
            ]),
        // `doc` holds the whole product, its stock included; sku and barcode are unique in a
        // store when present. The ledger's entries are numbered across products (`seq`).
        Migration(
            2, "products and the stock ledger",
            sql: [
                """
                CREATE TABLE products (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    sku TEXT,
                    barcode TEXT,
                    version BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX products_sku ON products (store_id, sku) WHERE sku IS NOT NULL",
                "CREATE UNIQUE INDEX products_barcode ON products (store_id, barcode) WHERE barcode IS NOT NULL",
                "CREATE INDEX products_by_store ON products (store_id, created_at, id)",
                """
                CREATE TABLE stock_ledger (
                    seq BIGINT PRIMARY KEY,
                    id TEXT NOT NULL,
                    product_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX stock_ledger_by_product ON stock_ledger (product_id, seq)",
            ]),
        // The columns lists filter on, and the store's change feed (`change_seq`, numbered per
        // store); the products stored before them get theirs from their documents.
        Migration(3, "product filters and the change feed") { transaction in
            for statement in [
                "ALTER TABLE products ADD COLUMN category TEXT",
                "ALTER TABLE products ADD COLUMN active BIGINT NOT NULL DEFAULT 1",
                "ALTER TABLE products ADD COLUMN search TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE products ADD COLUMN stock_status TEXT NOT NULL DEFAULT 'not_tracked'",
                "ALTER TABLE products ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0",
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
            let products = try await transaction.sql.raw("SELECT doc FROM products ORDER BY created_at, id").all()
                .map { try StoredDocument.decode(Product.self, from: $0) }
            for product in products {
                try await ProductsRepository.fill(product, in: transaction)
            }
            for statement in [
                "CREATE INDEX products_changes ON products (store_id, change_seq)",
                "CREATE INDEX products_by_category ON products (store_id, category)",
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
        },
        // A reservation's lines live in its document; the sweep finds the held ones that are due
        // (those held for an order until it ends have no `expires_at`), the orders' holds (the
        // catalog's `OrderHoldsFollower`) an order's reservations, and `order_holds` which version of
        // each order they were brought in line with.
        Migration(
            4, "reservations",
            sql: [
                """
                CREATE TABLE reservations (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    order_id TEXT,
                    status TEXT NOT NULL,
                    expires_at BIGINT,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX reservations_due ON reservations (expires_at) WHERE status = 'held'",
                "CREATE INDEX reservations_by_order ON reservations (order_id) WHERE order_id IS NOT NULL",
                "CREATE TABLE order_holds (order_id TEXT PRIMARY KEY, version BIGINT NOT NULL)",
            ]),
        // Which version of each payment its reservation was brought in line with (the catalog's
        // `PaymentHoldsFollower`), so that a late event of an earlier version changes nothing.
        Migration(
            5, "payment holds",
            sql: ["CREATE TABLE payment_holds (payment_id TEXT PRIMARY KEY, version BIGINT NOT NULL)"]),
        // The store-wide ledger: each entry's store and reason as columns, filled from the
        // documents of those written before.
        Migration(6, "the store's stock ledger") { transaction in
            for statement in [
                "ALTER TABLE stock_ledger ADD COLUMN store_id TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE stock_ledger ADD COLUMN reason TEXT NOT NULL DEFAULT ''",
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
            let entries = try await transaction.sql.raw("SELECT doc FROM stock_ledger").all()
                .map { try StoredDocument.decode(StockLedgerEntry.self, from: $0) }
            for entry in entries {
                try await transaction.sql.raw(
                    """
                    UPDATE stock_ledger SET store_id = \(bind: entry.storeID.description), reason = \(bind: entry.reason.rawValue)
                    WHERE seq = \(bind: entry.seq)
                    """
                ).run()
            }
            try await transaction.sql.raw(
                "CREATE INDEX stock_ledger_by_store ON stock_ledger (store_id, seq)"
            ).run()
        },
        // What finds a store near a place and by its words, with each engine's own index
        // (`StoreSearch`): the rectangle around each delivery area, beside the store's place and
        // its area (a radius, or a polygon's corners as JSON) for the exact test without reading
        // the stores' documents; and the folded words of each
        // store's name and cuisine and of its dishes' names, written apart so that a store's
        // change and a product's never overwrite each other's. SQLite's R*Tree and FTS5 key
        // their rows by integers: `store_keys` gives each store one that VACUUM never renumbers.
        Migration(7, "stores found near a place and by their words", readers: .earlierBuilds) { transaction in
            let statements =
                transaction.kind == .sqlite
                ? [
                    "CREATE TABLE store_keys (key INTEGER PRIMARY KEY, store_id TEXT NOT NULL UNIQUE)",
                    """
                    CREATE VIRTUAL TABLE store_areas USING rtree(
                        key, min_lat, max_lat, min_lng, max_lng, +store_id TEXT, +lat REAL, +lng REAL,
                        +radius_m INTEGER, +polygon TEXT)
                    """,
                    """
                    CREATE VIRTUAL TABLE store_text USING fts5(
                        own_words, dish_words, tokenize = 'unicode61 remove_diacritics 0')
                    """,
                ]
                : [
                    """
                    CREATE TABLE store_areas (
                        store_id TEXT PRIMARY KEY, area box NOT NULL, lat DOUBLE PRECISION NOT NULL,
                        lng DOUBLE PRECISION NOT NULL, radius_m INTEGER, polygon TEXT)
                    """,
                    "CREATE INDEX store_areas_by_area ON store_areas USING gist (area)",
                    """
                    CREATE TABLE store_text (
                        store_id TEXT PRIMARY KEY, own_words tsvector NOT NULL, dish_words tsvector NOT NULL)
                    """,
                    "CREATE INDEX store_text_by_word ON store_text USING gin ((own_words || dish_words))",
                ]
            for statement in statements { try await transaction.sql.raw(SQLQueryString(statement)).run() }
            let stores = try await transaction.sql.raw("SELECT doc FROM stores").all()
                .map { try StoredDocument.decode(Store.self, from: $0) }
            for store in stores {
                try await StoreSearch.index(store, in: transaction)
                try await StoreSearch.indexDishes(of: store.id, in: transaction)
            }
        },
    ]
}
