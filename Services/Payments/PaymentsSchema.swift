import Storage

/// The payments service's tables; `doc` holds each payment or receipt whole as JSON.
enum PaymentsSchema {
    static let migrations = [
        Migration(
            1, "payments and receipts",
            sql: [
                """
                CREATE TABLE payments (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    order_id TEXT,
                    status TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX payments_by_store ON payments (store_id, created_at, id)",
                """
                CREATE TABLE receipts (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    number BIGINT NOT NULL,
                    payment_id TEXT NOT NULL,
                    issued_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX receipts_number ON receipts (store_id, number)",
                "CREATE UNIQUE INDEX receipts_payment ON receipts (payment_id)",
            ])
    ]
}
