internal import Foundation
public import Logging
internal import NIOCore
internal import NIOPosix
internal import NIOSSL
internal import PostgresKit
internal import PostgresNIO
public import SQLKit
internal import SQLiteKit
internal import Synchronization

/// A service's own database: SQLite (the embedded default) or PostgreSQL, with the same SQL.
///
/// Every write goes through `transaction(_:)`. On SQLite, a process has one writer connection
/// and queues its transactions (SQLite allows one writer at a time anyway) while reads use a
/// second connection and never wait for writes (WAL). On PostgreSQL, transactions run on
/// pooled connections at READ COMMITTED; rows that must come out in commit order take their
/// number from `Transaction.nextSequence(_:)`, whose row lock orders them.
public final class Database: Sendable {
    public enum Kind: String, Sendable { case sqlite, postgres }

    public let kind: Kind
    public let location: DatabaseLocation
    private let backend: Backend
    private let logger: Logger
    private let commitListeners = Mutex<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextListener = Atomic<Int>(0)

    private enum Backend: Sendable {
        case sqlite(writer: SQLiteConnection, reader: SQLiteConnection, gate: AsyncGate, threads: NIOThreadPool)
        case postgres(PostgresClient, runner: Task<Void, Never>)
    }

    private init(kind: Kind, location: DatabaseLocation, backend: Backend, logger: Logger) {
        self.kind = kind
        self.location = location
        self.backend = backend
        self.logger = logger
    }

    /// Opens (creating an SQLite file and its directory when missing) and checks the
    /// connection with a first query, so a wrong URL fails at start, not at the first request.
    public static func open(_ location: DatabaseLocation, logger: Logger) async throws -> Database {
        switch location {
        case .sqlite(let path, let synchronousFull):
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // Two threads: one for the writer, one for the reader.
            let threads = NIOThreadPool(numberOfThreads: 2)
            threads.start()
            let loop = MultiThreadedEventLoopGroup.singleton.any()
            do {
                let writer = try await SQLiteConnection.open(
                    storage: .file(path: path), threadPool: threads, logger: logger, on: loop)
                let reader = try await SQLiteConnection.open(
                    storage: .file(path: path), threadPool: threads, logger: logger, on: loop)
                // busy_timeout replaces SQLiteNIO's spinning busy handler with a sleeping one,
                // for when another process holds the file.
                for pragma in [
                    "PRAGMA journal_mode = WAL", "PRAGMA synchronous = \(synchronousFull ? "FULL" : "NORMAL")",
                    "PRAGMA busy_timeout = 10000", "PRAGMA foreign_keys = ON",
                ] {
                    try await writer.sql(queryLogLevel: nil).raw(SQLQueryString(pragma)).run()
                }
                try await reader.sql(queryLogLevel: nil).raw("PRAGMA busy_timeout = 10000").run()
                return Database(
                    kind: .sqlite, location: location,
                    backend: .sqlite(writer: writer, reader: reader, gate: AsyncGate(), threads: threads),
                    logger: logger)
            } catch {
                try? await threads.shutdownGracefully()
                throw error
            }
        case .postgres(let settings):
            let tls: PostgresClient.Configuration.TLS =
                switch settings.tls {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            var configuration = PostgresClient.Configuration(
                host: settings.host, port: settings.port, username: settings.username, password: settings.password,
                database: settings.database, tls: tls)
            configuration.options.maximumConnections = settings.maximumConnections
            configuration.options.connectTimeout = .seconds(5)
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            let runner = Task { await client.run() }
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

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Events it publishes are written to the outbox just before the commit.
    public func transaction<T: Sendable>(_ body: @Sendable (Transaction) async throws -> T) async throws -> T {
        let (result, published): (T, Bool)
        switch backend {
        case .sqlite(let writer, _, let gate, _):
            (result, published) = try await gate.withLock {
                try await run(body, on: writer.sql(queryLogLevel: nil), begin: "BEGIN IMMEDIATE", onBrokenRollback: {})
            }
        case .postgres(let client, _):
            (result, published) = try await client.withConnection { connection in
                try await run(body, on: connection.sql(queryLogLevel: nil), begin: "BEGIN") {
                    // A connection whose transaction could not be ended must not serve anyone else.
                    connection.close()
                }
            }
        }
        if published { notifyCommit() }
        return result
    }

    private func run<T: Sendable>(
        _ body: @Sendable (Transaction) async throws -> T, on sql: any SQLDatabase, begin: String,
        onBrokenRollback: () -> Void
    ) async throws -> (T, Bool) {
        try await sql.raw(SQLQueryString(begin)).run()
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
                logger.error("rollback failed", metadata: ["error": "\(rollbackError)"])
                onBrokenRollback()
            }
            throw error
        }
    }

    /// Runs `body` outside any transaction: each statement sees the latest commits, and on
    /// SQLite reads never wait for a write in progress. Writes belong in `transaction(_:)`.
    public func read<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        switch backend {
        case .sqlite(_, let reader, _, _):
            return try await body(reader.sql(queryLogLevel: nil))
        case .postgres(let client, _):
            return try await client.withConnection { try await body($0.sql(queryLogLevel: nil)) }
        }
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

    /// Closes the connections; the database cannot be used afterwards.
    public func close() async {
        commitListeners.withLock { listeners in
            for continuation in listeners.values { continuation.finish() }
        }
        switch backend {
        case .sqlite(let writer, let reader, let gate, let threads):
            _ = try? await gate.withLock {
                try await writer.close()
                try await reader.close()
            }
            try? await threads.shutdownGracefully()
        case .postgres(_, let runner):
            runner.cancel()
            await runner.value
        }
    }
}
