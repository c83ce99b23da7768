import Events
import Foundation
public import Logging
import Metrics
import NIOCore
import NIOSSL
import PostgresKit
import PostgresNIO
public import SQLKit
import Synchronization

/// A service's own database: SQLite (the embedded default) or PostgreSQL, with the same SQL.
///
/// Every write goes through `transaction(_:)`. On SQLite, a process has one writer connection
/// (SQLite allows one writer at a time anyway); its transactions queue and are committed in
/// groups (`SQLiteGroupCommit`), while reads use a second connection and never wait for writes
/// (WAL). On PostgreSQL, transactions run on pooled connections at READ COMMITTED; rows that
/// must come out in commit order take their number from `Transaction.nextSequence(_:)`, whose
/// row lock orders them.
public final class Database: Sendable {
    public enum Kind: String, Sendable { case sqlite, postgres }

    public let kind: Kind
    public let location: DatabaseLocation
    private let backend: Backend
    let logger: Logger
    private let commitListeners = Mutex<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextListener = Atomic<Int>(0)
    private let runningRequests = Mutex<Set<String>>([])
    /// Write transactions timed to their durable commit, or to their rollback.
    private let committed: Metrics.Timer
    private let rolledBack: Metrics.Timer

    private enum Backend: Sendable {
        case sqlite(
            writer: EmbeddedSQLiteConnection, reader: EmbeddedSQLiteConnection, commits: SQLiteGroupCommit,
            checkpointer: Task<Void, Never>)
        case postgres(PostgresClient, runner: Task<Void, Never>)
    }

    /// Creates the directory (mode 0700) and an empty file (mode 0600) when missing, so that
    /// only the service's user can read the data; SQLite gives its WAL and shared-memory files
    /// the database file's mode. An existing file or directory is left as it is.
    static func createPrivately(sqliteFile path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // The C library's by name: `open` alone is `Database.open`.
        #if canImport(Glibc)
            let descriptor = Glibc.open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #elseif canImport(Darwin)
            let descriptor = Darwin.open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #endif
        guard descriptor >= 0 else {
            throw StorageError.unexpected("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #elseif canImport(Darwin)
            Darwin.close(descriptor)
        #endif
    }

    private init(kind: Kind, location: DatabaseLocation, backend: Backend, logger: Logger) {
        self.kind = kind
        self.location = location
        self.backend = backend
        self.logger = logger
        (committed, rolledBack) = (
            Metrics.Timer(
                label: "orderly_db_transaction_duration_seconds",
                dimensions: [("database", kind.rawValue), ("outcome", "committed")]),
            Metrics.Timer(
                label: "orderly_db_transaction_duration_seconds",
                dimensions: [("database", kind.rawValue), ("outcome", "rolled_back")])
        )
    }

    /// Opens (creating an SQLite file and its directory when missing, for their owner alone) and
    /// checks the connection with a first query, so a wrong URL fails at start, not at the first
    /// request.
    public static func open(_ location: DatabaseLocation, logger: Logger) async throws -> Database {
        switch location {
        case .sqlite(let path, let synchronousFull):
            try createPrivately(sqliteFile: path)
            let writer = try await EmbeddedSQLiteConnection.open(path: path, name: "sqlite-writer")
            let reader: EmbeddedSQLiteConnection
            do {
                reader = try await EmbeddedSQLiteConnection.open(path: path, name: "sqlite-reader")
            } catch {
                await writer.close()
                throw error
            }
            // Set up before anything else touches the file (the checkpointer below included), the
            // busy timeout first: a connection without one fails at once, rather than waits,
            // while another holds a lock (switching to WAL needs the file to itself).
            do {
                for pragma in [
                    "PRAGMA busy_timeout = 10000", "PRAGMA journal_mode = WAL",
                    "PRAGMA synchronous = \(synchronousFull ? "FULL" : "NORMAL")", "PRAGMA foreign_keys = ON",
                    "PRAGMA temp_store = MEMORY",
                    // temp_store = MEMORY: each group member runs in a savepoint, whose journal
                    // (the pages it changed, as they were) would otherwise go to a temporary file
                    // once past 64 KiB, as an order's does, and stay there for the whole group: two
                    // write calls per page, most of the writer's system time. The journal only
                    // ever serves a rollback within the open transaction, so memory loses nothing.
                    // Checkpoints (copying the WAL into the database file, with its fsyncs) are
                    // not the writer's job here: the checkpointer below does them. A WAL a burst
                    // left longer than 64 MiB is cut back when it starts over.
                    "PRAGMA wal_autocheckpoint = 0", "PRAGMA journal_size_limit = 67108864",
                ] + Self.sqliteCachePragmas {
                    _ = try await writer.run { try $0.query(pragma, []) }
                }
                for pragma in ["PRAGMA busy_timeout = 10000"] + Self.sqliteCachePragmas {
                    _ = try await reader.run { try $0.query(pragma, []) }
                }
            } catch {
                await reader.close()
                await writer.close()
                throw error
            }
            let commits = SQLiteGroupCommit(
                connection: writer, sql: EmbeddedSQLDatabase(connection: writer, logger: logger))
            // Copies the WAL into the database file four times a second, from the reader's
            // thread; a passive checkpoint never blocks the writer. SQLite starts the WAL over
            // (rather than appending to it) only once every frame in it was copied, which under
            // a steady stream of commits a checkpoint beside the writer never achieves. So it
            // copies again what came in meanwhile, until that is little, and then the writer
            // copies the rest itself between two groups.
            let checkpointer = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    var seen: Int64 = 0
                    for _ in 0..<4 {
                        let result = try? await reader.run { try $0.query("PRAGMA wal_checkpoint(PASSIVE)", []) }
                        // One row: busy, frames in the WAL (when this pass began), frames copied.
                        guard let row = result?.rows.first, row.count == 3, case .integer(let frames) = row[1] else {
                            break
                        }
                        defer { seen = frames }
                        if frames - seen < 256 { break }
                    }
                    if seen > 0 { commits.requestCheckpoint() }
                }
            }
            return Database(
                kind: .sqlite, location: location,
                backend: .sqlite(writer: writer, reader: reader, commits: commits, checkpointer: checkpointer),
                logger: logger)
        case .postgres(let settings):
            var verification = TLSConfiguration.makeClientConfiguration()
            if let roots = settings.rootCertificates {
                do {
                    verification.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(roots))
                } catch {
                    throw StorageError.unexpected("sslrootcert '\(roots)' holds no PEM certificate: \(error)")
                }
            }
            if settings.tls == .verifyCA { verification.certificateVerification = .noHostnameVerification }
            let tls: PostgresClient.Configuration.TLS =
                switch settings.tls {
                case .disable: .disable
                case .prefer: .prefer(verification)
                case .require, .verifyCA, .verifyFull: .require(verification)
                }
            var configuration = PostgresClient.Configuration(
                host: settings.host, port: settings.port, username: settings.username, password: settings.password,
                database: settings.database, tls: tls)
            configuration.options.maximumConnections = settings.maximumConnections
            configuration.options.connectTimeout = .seconds(5)
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            // Started at once, so that the first lease below finds the client running.
            let runner = Task.immediate { await client.run() }
            let database = Database(
                kind: .postgres, location: location, backend: .postgres(client, runner: runner), logger: logger)
            do {
                try await database.read { try await $0.raw("SELECT 1").run() }
            } catch {
                await database.close()
                throw error
            }
            return database
        }
    }

    /// Each SQLite connection keeps up to 64 MiB of pages in its own cache and reads the file
    /// through a memory map, rather than asking the kernel for each page it needs again with a
    /// system call.
    static let sqliteCachePragmas = ["PRAGMA cache_size = -65536", "PRAGMA mmap_size = 268435456"]

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Events it publishes are written to the outbox just before the commit. `body` must not
    /// start another transaction on the same database (on SQLite it would wait for itself).
    public func transaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        let started = NIODeadline.now()
        do {
            let result = try await TraceContext.span(
                "db.transaction", attributes: { $0["db.system"] = kind == .sqlite ? "sqlite" : "postgresql" }
            ) { try await run(body) }
            committed.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
            return result
        } catch {
            rolledBack.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
            throw error
        }
    }

    private func run<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        switch backend {
        case .sqlite(let writer, _, let commits, _):
            let (result, published) = try await commits.run { sql in
                let transaction = Transaction(sql: sql, kind: kind, connection: writer)
                let result = try await body(transaction)
                return (result, try await transaction.writeOutbox())
            }
            if published { notifyCommit() }
            return result
        case .postgres(let client, _):
            let (result, published) = try await client.withConnection { try await run(body, on: $0) }
            if published { notifyCommit() }
            return result
        }
    }

    /// A PostgreSQL transaction; returns the body's result and whether it published events.
    private func run<T: Sendable>(
        _ body: @Sendable (Transaction) async throws -> T, on connection: PostgresConnection
    ) async throws -> (T, Bool) {
        let sql = connection.sql(queryLogLevel: nil)
        try await sql.raw("BEGIN").run()
        let transaction = Transaction(sql: sql, kind: kind)
        do {
            let result = try await body(transaction)
            let published = try await transaction.writeOutbox()
            try await sql.raw("COMMIT").run()
            return (result, published)
        } catch {
            do {
                try await sql.raw("ROLLBACK").run()
            } catch let rollbackError {
                // A connection whose transaction could not be ended must not serve anyone else.
                logger.error("rollback failed; closing the connection", metadata: ["error": "\(rollbackError)"])
                try? await connection.close()
            }
            throw error
        }
    }

    /// Marks an idempotent request as running in this process; false when it already is.
    /// On SQLite, whose file one process owns, this is what refuses a second request with the
    /// same key while the first runs; PostgreSQL replicas use an advisory lock instead.
    func beginRequest(_ key: String) -> Bool {
        guard kind == .sqlite else { return true }
        return runningRequests.withLock { $0.insert(key).inserted }
    }

    func endRequest(_ key: String) {
        guard kind == .sqlite else { return }
        _ = runningRequests.withLock { $0.remove(key) }
    }

    /// Runs `body` outside any transaction: each statement sees the latest commits, and on
    /// SQLite reads never wait for a write in progress. Writes belong in `transaction(_:)`.
    public func read<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        switch backend {
        case .sqlite(_, let reader, _, _):
            return try await body(sql(reader))
        case .postgres(let client, _):
            return try await client.withConnection { try await body($0.sql(queryLogLevel: nil)) }
        }
    }

    /// Where code that mostly runs this database's transactions runs best: on SQLite, the
    /// writer connection's thread, where a transaction's body runs anyway. Code running there
    /// hands its transactions to the writer and gets them back without a thread switch, and
    /// transactions started side by side there reach the writer together and commit in one
    /// group. Nil on PostgreSQL. Only for light code: whatever runs there delays every write.
    public var preferredExecutor: (any TaskExecutor)? {
        if case .sqlite(let writer, _, _, _) = backend { return writer.thread }
        return nil
    }

    /// Yields to `continuation` after every commit that wrote outbox rows (what wakes the
    /// outbox relay); returns the registration to remove.
    func addCommitListener(_ continuation: AsyncStream<Void>.Continuation) -> Int {
        let id = nextListener.add(1, ordering: .relaxed).newValue
        commitListeners.withLock { $0[id] = continuation }
        return id
    }

    func removeCommitListener(_ id: Int) {
        _ = commitListeners.withLock { $0.removeValue(forKey: id) }
    }

    private func notifyCommit() {
        commitListeners.withLock { listeners in
            for continuation in listeners.values { continuation.yield() }
        }
    }

    private func sql(_ connection: EmbeddedSQLiteConnection) -> any SQLDatabase {
        EmbeddedSQLDatabase(connection: connection, logger: logger)
    }

    /// Closes the connections; the database cannot be used afterwards.
    public func close() async {
        commitListeners.withLock { listeners in
            for continuation in listeners.values { continuation.finish() }
        }
        switch backend {
        case .sqlite(let writer, let reader, _, let checkpointer):
            checkpointer.cancel()
            await checkpointer.value
            // Leave a database file that holds everything, and an empty WAL.
            _ = try? await writer.run { try $0.query("PRAGMA wal_checkpoint(TRUNCATE)", []) }
            await writer.close()
            await reader.close()
        case .postgres(_, let runner):
            runner.cancel()
            await runner.value
        }
    }
}
