import Foundation
import SQLKit

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
