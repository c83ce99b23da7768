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
    ]
}
