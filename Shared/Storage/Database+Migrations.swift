import Foundation
import SQLKit

extension Database {
    /// Brings the schema up to date: the storage layer's own tables first, then `migrations`
    /// under `scope` (the service's name). Everything runs in one transaction that first takes
    /// a lock (a transaction advisory lock on PostgreSQL, the write lock on SQLite), so when two
    /// replicas start at once one migrates and the other then finds nothing left to do.
    ///
    /// A schema newer than `migrations` (a rollback, or an old replica restarting mid-rollout) is
    /// run on as it is when each step this build does not know declares it readable by this
    /// build (`Migration.Readers`), and refused otherwise, naming the step.
    /// Returns the versions of `scope` applied now.
    @discardableResult
    public func migrate(scope: String, _ migrations: [Migration]) async throws -> [Int] {
        try Self.check(migrations, scope: scope)
        let (applied, newer) = try await transaction { transaction in
            try await Self.prepare(transaction)
            _ = try await Self.apply(StorageSchema.migrations, scope: StorageSchema.scope, in: transaction)
            return try await Self.apply(migrations, scope: scope, in: transaction)
        }
        if let newest = newer.last {
            logger.notice(
                "running on a newer schema that declares itself readable by this build",
                metadata: ["db.scope": "\(scope)", "db.schema": "\(newest.version)", "db.known": "\(migrations.count)"])
        }
        return applied
    }

    /// Where `scope`'s schema stands against `migrations`, changing nothing (`migrate status`).
    public func migrationStatus(scope: String, _ migrations: [Migration]) async throws -> MigrationStatus {
        try Self.check(migrations, scope: scope)
        return try await transaction { transaction in
            try await Self.prepare(transaction)
            let recorded = try await Self.recorded(scope: scope, in: transaction)
            return MigrationStatus(scope: scope, known: migrations, recorded: recorded)
        }
    }

    /// The key of the advisory lock migrations take on PostgreSQL ("orderly" in ASCII).
    private static let migrationLock: Int64 = 0x6f72_6465_726c_79

    /// Takes the lock, and makes the table of applied steps (with its `readers` column, added
    /// to a table made before it) when missing.
    private static func prepare(_ transaction: Transaction) async throws {
        if transaction.kind == .postgres {
            try await transaction.sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.migrationLock))").run()
        }
        try await transaction.sql.raw(
            """
            CREATE TABLE IF NOT EXISTS orderly_migrations (
                scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at BIGINT NOT NULL,
                readers BIGINT, PRIMARY KEY (scope, version))
            """
        ).run()
        let column: SQLQueryString =
            transaction.kind == .sqlite
            ? "SELECT COUNT(*) AS n FROM pragma_table_info('orderly_migrations') WHERE name = 'readers'"
            : """
            SELECT COUNT(*) AS n FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'orderly_migrations' AND column_name = 'readers'
            """
        let found = try await transaction.sql.raw(column).first()?.decode(column: "n", as: Int.self) ?? 0
        if found == 0 {
            try await transaction.sql.raw("ALTER TABLE orderly_migrations ADD COLUMN readers BIGINT").run()
        }
    }

    private static func check(_ migrations: [Migration], scope: String) throws {
        guard !scope.isEmpty, scope != StorageSchema.scope else {
            throw StorageError.invalidMigrations("scope \"\(scope)\" is empty or reserved")
        }
        for (index, migration) in migrations.enumerated() {
            guard migration.version == index + 1 else {
                throw StorageError.invalidMigrations(
                    "\(scope) migration \"\(migration.name)\" has version \(migration.version), expected \(index + 1)")
            }
            // Expand, deploy, contract: the build before a step runs on the schema it makes.
            if case .buildsFrom(let oldest) = migration.readers, !(1..<migration.version).contains(oldest) {
                throw StorageError.invalidMigrations(
                    "\(scope) migration \(migration.version) \"\(migration.name)\" is read only by builds from \(oldest) on: a step must leave the schema readable by the build before it (at most \(migration.version - 1)); drop what it removes a release after the code stops using it"
                )
            }
        }
    }

    private static func recorded(scope: String, in transaction: Transaction) async throws
        -> [MigrationStatus.Step]
    {
        try await transaction.sql.raw(
            "SELECT version, name, readers FROM orderly_migrations WHERE scope = \(bind: scope) ORDER BY version"
        ).all().map {
            MigrationStatus.Step(
                version: try $0.decode(column: "version", as: Int.self),
                name: try $0.decode(column: "name", as: String.self),
                readers: try $0.decode(column: "readers", as: Int?.self))
        }
    }

    /// Applies what is missing; returns the versions applied and the recorded steps this build
    /// does not know (each readable by it, or this throws).
    private static func apply(_ migrations: [Migration], scope: String, in transaction: Transaction) async throws
        -> (applied: [Int], newer: [MigrationStatus.Step])
    {
        let status = MigrationStatus(
            scope: scope, known: migrations, recorded: try await recorded(scope: scope, in: transaction))
        if let differing = status.differing {
            throw StorageError.migrationHistoryDiffers(
                scope: scope, version: differing.version, recorded: differing.recorded, expected: differing.expected)
        }
        if let blocking = status.unreadable {
            throw StorageError.schemaTooNew(
                scope: scope, schema: status.newer.last?.version ?? blocking.version, known: migrations.count,
                step: blocking)
        }
        var applied: [Int] = []
        for migration in status.pending {
            try await migration.apply(transaction)
            try await transaction.sql.raw(
                """
                INSERT INTO orderly_migrations (scope, version, name, applied_at, readers)
                VALUES (\(bind: scope), \(bind: migration.version), \(bind: migration.name), \(bind: Date.nowMilliseconds),
                    \(bind: migration.recordedReaders))
                """
            ).run()
            applied.append(migration.version)
        }
        return (applied, status.newer)
    }
}

/// A scope's schema against a build's steps: what is applied, what this build would apply, and
/// what was applied by a newer build.
public struct MigrationStatus: Sendable {
    /// A step as recorded: `readers` NULL (none said), 0 (every earlier build) or the fewest
    /// steps a build must know to run on it.
    public struct Step: Sendable, Hashable {
        public var version: Int
        public var name: String
        public var readers: Int?

        /// Whether a build knowing `known` steps runs on the schema this step made.
        public func isReadable(byBuildKnowing known: Int) -> Bool {
            guard let readers else { return false }
            return readers == 0 || readers <= known
        }
    }

    public var scope: String
    /// How many steps this build knows.
    public var known: Int
    public var recorded: [Step]
    /// This build's steps not recorded yet, in order.
    public var pending: [Migration]
    /// Recorded steps this build does not know.
    public var newer: [Step]

    init(scope: String, known migrations: [Migration], recorded: [Step]) {
        self.scope = scope
        self.known = migrations.count
        self.recorded = recorded
        let versions = Set(recorded.map(\.version))
        self.pending = migrations.filter { !versions.contains($0.version) }
        self.newer = recorded.filter { $0.version > migrations.count }
        self.names = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0.name) })
    }

    private let names: [Int: String]

    /// The first step recorded under another name than this build's.
    var differing: (version: Int, recorded: String, expected: String)? {
        for step in recorded {
            if let name = names[step.version], name != step.name { return (step.version, step.name, name) }
        }
        return nil
    }

    /// The first newer step that does not declare this build a reader.
    public var unreadable: Step? { newer.first { !$0.isReadable(byBuildKnowing: known) } }

    /// One line for `migrate status`.
    public var summary: String {
        let at = recorded.last?.version ?? 0
        if let blocking = unreadable {
            return
                "\(scope): schema at \(at), newer than this build's \(known); step \(blocking.version) \"\(blocking.name)\" is not readable by this build: it refuses to start"
        }
        if !newer.isEmpty {
            return "\(scope): schema at \(at), newer than this build's \(known), and readable by it"
        }
        if pending.isEmpty { return "\(scope): schema at \(at), up to date" }
        return "\(scope): schema at \(at) of \(known); to apply: "
            + pending.map { "\($0.version) \"\($0.name)\"" }.joined(separator: ", ")
    }
}
