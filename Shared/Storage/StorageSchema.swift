import Foundation
import SQLKit

/// The storage layer's own tables, in every service's database.
enum StorageSchema {
    static let scope = "orderly.storage"

    static let migrations: [Migration] = [
        Migration(1, "outbox") { transaction in
            // On SQLite `INTEGER PRIMARY KEY` is the row id, numbered as rows are inserted, and
            // inserts happen one transaction at a time: insert order is commit order. PostgreSQL
            // numbers rows from the locked counter instead (`Transaction.writeOutbox`).
            let seq = transaction.kind == .sqlite ? "seq INTEGER PRIMARY KEY" : "seq BIGINT PRIMARY KEY"
            try await transaction.sql.raw(
                """
                CREATE TABLE orderly_outbox (
                    \(unsafeRaw: seq), event_id TEXT NOT NULL, type TEXT NOT NULL, store_id TEXT,
                    aggregate_id TEXT NOT NULL, occurred_at BIGINT NOT NULL, payload TEXT NOT NULL, trace TEXT,
                    created_at BIGINT NOT NULL, sent_at BIGINT)
                """
            ).run()
        },
        Migration(
            2, "sequences, inbox, idempotency records",
            sql: [
                "CREATE TABLE orderly_sequences (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
                "CREATE INDEX orderly_outbox_pending ON orderly_outbox (seq) WHERE sent_at IS NULL",
                "CREATE INDEX orderly_outbox_sent ON orderly_outbox (sent_at) WHERE sent_at IS NOT NULL",
                // The relay's lock row: a relay holds it (FOR UPDATE) while it publishes a batch.
                "INSERT INTO orderly_sequences (name, value) VALUES ('\(OutboxSchema.relayLock)', 0)",
                """
                CREATE TABLE orderly_inbox (
                    consumer TEXT NOT NULL, event_id TEXT NOT NULL, applied_at BIGINT NOT NULL,
                    PRIMARY KEY (consumer, event_id))
                """,
                "CREATE INDEX orderly_inbox_applied ON orderly_inbox (applied_at)",
                """
                CREATE TABLE orderly_idempotency (
                    scope TEXT NOT NULL, idempotency_key TEXT NOT NULL, request_hash TEXT NOT NULL,
                    response TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                    PRIMARY KEY (scope, idempotency_key))
                """,
                "CREATE INDEX orderly_idempotency_expiry ON orderly_idempotency (expires_at)",
            ]),
    ]
}
