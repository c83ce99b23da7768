internal import Storage

/// The orders service's tables. `doc` holds the whole order as JSON; the other columns are what
/// queries filter and sort on. `change_seq` orders changes for the offline sync feed.
enum OrdersSchema {
    static let migrations = [
        Migration(
            1, "orders",
            sql: [
                """
                CREATE TABLE orders (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    number BIGINT NOT NULL,
                    fulfillment TEXT NOT NULL,
                    status TEXT NOT NULL,
                    courier_id TEXT,
                    created_by TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    change_seq BIGINT NOT NULL,
                    version BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX orders_number ON orders (store_id, number)",
                "CREATE INDEX orders_by_store ON orders (store_id, created_at, id)",
                "CREATE INDEX orders_by_creation ON orders (created_at, id)",
                "CREATE INDEX orders_by_courier ON orders (courier_id, created_at, id)",
                "CREATE INDEX orders_by_creator ON orders (created_by, created_at, id)",
            ])
    ]
}
