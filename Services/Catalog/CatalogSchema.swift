import Storage

/// The catalog's tables. `doc` holds the whole store as JSON; the other columns are what
/// queries filter and sort on.
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
            ])
    ]
}
