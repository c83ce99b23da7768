import Foundation
import SQLKit

/// One step of a service's schema. Versions start at 1 and go up by one; a version, once
/// released, never changes (its name is recorded and checked at every start).
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var apply: @Sendable (Transaction) async throws -> Void

    public init(_ version: Int, _ name: String, apply: @escaping @Sendable (Transaction) async throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }

    /// A step made of SQL statements that mean the same on SQLite and PostgreSQL.
    public init(_ version: Int, _ name: String, sql statements: [String]) {
        self.init(version, name) { transaction in
            for statement in statements { try await transaction.sql.raw(SQLQueryString(statement)).run() }
        }
    }
}

extension Database {
    /// Brings the schema up to date: the storage layer's own tables first, then `migrations`
    /// under `scope` (the service's name). Everything runs in one transaction that first takes
    /// a lock (a transaction advisory lock on PostgreSQL, the write lock on SQLite), so when two
    /// replicas start at once one migrates and the other then finds nothing left to do.
    /// Returns the versions of `scope` applied now.
    @discardableResult
    public func migrate(scope: String, _ migrations: [Migration]) async throws -> [Int] {
        try Self.check(migrations, scope: scope)
        return try await transaction { transaction in
            if transaction.kind == .postgres {
                try await transaction.sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.migrationLock))").run()
            }
            try await transaction.sql.raw(
                """
                CREATE TABLE IF NOT EXISTS orderly_migrations (
                    scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at BIGINT NOT NULL,
                    PRIMARY KEY (scope, version))
                """
            ).run()
            _ = try await Self.apply(StorageSchema.migrations, scope: StorageSchema.scope, in: transaction)
            return try await Self.apply(migrations, scope: scope, in: transaction)
        }
    }

    /// The key of the advisory lock migrations take on PostgreSQL ("orderly" in ASCII).
    private static let migrationLock: Int64 = 0x6f72_6465_726c_79

    private static func check(_ migrations: [Migration], scope: String) throws {
        guard !scope.isEmpty, scope != StorageSchema.scope else {
            throw StorageError.invalidMigrations("scope \"\(scope)\" is empty or reserved")
        }
        for (index, migration) in migrations.enumerated() where migration.version != index + 1 {
            throw StorageError.invalidMigrations(
                "\(scope) migration \"\(migration.name)\" has version \(migration.version), expected \(index + 1)")
        }
    }

    private static func apply(_ migrations: [Migration], scope: String, in transaction: Transaction) async throws
        -> [Int]
    {
        let rows = try await transaction.sql.raw(
            "SELECT version, name FROM orderly_migrations WHERE scope = \(bind: scope)"
        ).all()
        var recorded: [Int: String] = [:]
        for row in rows {
            recorded[try row.decode(column: "version", as: Int.self)] = try row.decode(column: "name", as: String.self)
        }
        var applied: [Int] = []
        for migration in migrations {
            if let name = recorded[migration.version] {
                guard name == migration.name else {
                    throw StorageError.migrationHistoryDiffers(
                        scope: scope, version: migration.version, recorded: name, expected: migration.name)
                }
                continue
            }
            try await migration.apply(transaction)
            try await transaction.sql.raw(
                """
                INSERT INTO orderly_migrations (scope, version, name, applied_at)
                VALUES (\(bind: scope), \(bind: migration.version), \(bind: migration.name), \(bind: Date.nowMilliseconds))
                """
            ).run()
            applied.append(migration.version)
        }
        if let newest = recorded.keys.max(), newest > migrations.count {
            throw StorageError.migrationHistoryDiffers(
                scope: scope, version: newest, recorded: recorded[newest] ?? "", expected: "(unknown to this build)")
        }
        return applied
    }
}

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
