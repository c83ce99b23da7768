import SQLKit
import Storage

/// The notifications service's tables: each user's inbox, and `recipients`, its own copy of
/// who is in which store and which couriers are on duty, kept from the identity events; and
/// what the couriers on duty are told, stored once for all of them (`broadcasts`), read by each
/// courier through their spells on duty (`duty_spells`), with each one's read state.
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
            ]),
        // A notification's `id` is a random UUID: a unique index on it cost a write in a
        // random place of the file for every recipient of every event, and nothing looks it up.
        // On SQLite `seq` becomes the row id, which spares the separate index on it too.
        Migration(2, "notifications without an index on id") { transaction in
            let seq = transaction.kind == .sqlite ? "INTEGER" : "BIGINT"
            for statement in [
                """
                CREATE TABLE notifications_rebuilt (
                    seq \(seq) PRIMARY KEY,
                    id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "INSERT INTO notifications_rebuilt SELECT seq, id, user_id, created_at, doc FROM notifications",
                "DROP TABLE notifications",
                "ALTER TABLE notifications_rebuilt RENAME TO notifications",
                "CREATE INDEX notifications_by_user ON notifications (user_id, seq)",
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Read state beside each row, and an index of the unread ones alone, so that counting
        // what a user has not read reads only those.
        Migration(
            3, "read state",
            sql: [
                "ALTER TABLE notifications ADD COLUMN read_at BIGINT",
                "CREATE INDEX notifications_unread ON notifications (user_id) WHERE read_at IS NULL",
            ]),
        // The language each recipient reads; those recorded before are written to in English
        // until their next identity event.
        Migration(
            4, "recipients' locale", sql: ["ALTER TABLE recipients ADD COLUMN locale TEXT NOT NULL DEFAULT 'en'"]),
        // Webhooks: each store's endpoints with their signing secrets, and every delivery, due
        // at `due_at` while pending (an index of the pending ones alone finds what is due).
        Migration(
            5, "webhooks",
            sql: [
                """
                CREATE TABLE webhooks (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    active BIGINT NOT NULL,
                    events TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX webhooks_by_store ON webhooks (store_id, created_at, id)",
                """
                CREATE TABLE webhook_deliveries (
                    id TEXT PRIMARY KEY,
                    webhook_id TEXT NOT NULL,
                    status TEXT NOT NULL,
                    due_at BIGINT,
                    window_start BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    body TEXT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, id)",
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at) WHERE status = 'pending'",
            ]),
        // The devices pushed to: one row per push token (a token belongs to one user at a time),
        // found by user when their notifications are pushed.
        Migration(
            6, "devices",
            sql: [
                """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    token TEXT NOT NULL UNIQUE,
                    updated_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX devices_by_user ON devices (user_id)",
            ]),
        // Notifications and webhook deliveries by age, for housekeeping to prune those older
        // than their retention.
        Migration(
            7, "notifications and webhook deliveries by age",
            sql: [
                "CREATE INDEX notifications_by_creation ON notifications (created_at)",
                "CREATE INDEX webhook_deliveries_by_creation ON webhook_deliveries (created_at)",
            ]),
        // What the couriers on duty are told is stored once, numbered from the same sequence as
        // the inboxes, instead of once per courier: a courier's inbox holds the broadcasts
        // numbered within their spells on duty (`from_seq` < seq <= `to_seq`; an open spell ends
        // at the largest number). Read state: every broadcast up to a mark's `up_to_seq` was read
        // at its `read_at` (unless read before), and those read one by one above the last mark.
        // The couriers on duty when this runs start a spell now.
        Migration(8, "broadcasts to the couriers on duty") { transaction in
            let seq = transaction.kind == .sqlite ? "INTEGER" : "BIGINT"
            for statement in [
                """
                CREATE TABLE broadcasts (
                    seq \(seq) PRIMARY KEY,
                    id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX broadcasts_by_creation ON broadcasts (created_at)",
                """
                CREATE TABLE duty_spells (
                    user_id TEXT NOT NULL,
                    from_seq BIGINT NOT NULL,
                    to_seq BIGINT NOT NULL,
                    PRIMARY KEY (user_id, from_seq)
                )
                """,
                """
                CREATE TABLE broadcast_marks (
                    user_id TEXT NOT NULL,
                    up_to_seq BIGINT NOT NULL,
                    read_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, up_to_seq)
                )
                """,
                """
                CREATE TABLE broadcast_reads (
                    user_id TEXT NOT NULL,
                    seq BIGINT NOT NULL,
                    read_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, seq)
                )
                """,
                """
                INSERT INTO duty_spells (user_id, from_seq, to_seq)
                SELECT user_id, \(NotificationsRepository.sequenceNow), \(NotificationsRepository.openSpell)
                FROM recipients WHERE role = 'courier' AND active = 1 AND on_duty = 1
                """,
            ] {
                try await transaction.sql.raw(SQLQueryString(statement)).run()
            }
        },
        // The stores' activity feeds (`ActivityRepository`): each store's entries numbered on
        // their own; by time for housekeeping.
        Migration(
            9, "the stores' activity",
            sql: [
                """
                CREATE TABLE activity (
                    store_id TEXT NOT NULL,
                    seq BIGINT NOT NULL,
                    at BIGINT NOT NULL,
                    doc TEXT NOT NULL,
                    PRIMARY KEY (store_id, seq)
                )
                """,
                "CREATE INDEX activity_by_time ON activity (at)",
            ]),
    ]
}
