internal import Storage

/// The notifications service's tables: each user's inbox, and `recipients`, its own copy of
/// who is in which store and which couriers are on duty, kept from the identity events.
enum NotificationsSchema {
    static let migrations = [
        Migration(
            1, "notifications and recipients",
            sql: [
                """
                CREATE TABLE notifications (
                    seq BIGINT PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    user_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX notifications_by_user ON notifications (user_id, seq)",
                """
                CREATE TABLE recipients (
                    user_id TEXT PRIMARY KEY,
                    role TEXT NOT NULL,
                    store_id TEXT,
                    active BIGINT NOT NULL,
                    on_duty BIGINT NOT NULL,
                    version BIGINT NOT NULL
                )
                """,
                "CREATE INDEX recipients_by_store ON recipients (store_id)",
            ])
    ]
}
