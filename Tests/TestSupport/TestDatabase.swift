import Foundation
import Logging
import SQLKit
public import Storage
public import Testing

/// A fresh, empty database for one test: an SQLite file in a temporary directory, or a new
/// database in the throwaway PostgreSQL cluster `make test` starts (its URL in
/// `ORDERLY_TEST_POSTGRES_URL`). Removed afterwards, whether the test passed or not.
public struct TestDatabase: Sendable {
    public let kind: Database.Kind
    public let location: DatabaseLocation
    public let database: Database

    /// Another connection to the same database, as a second replica would have.
    public func openAgain() async throws -> Database {
        try await Database.open(location, logger: Self.logger)
    }

    static let logger = Logger(label: "orderly.tests.storage")

    /// Whether a PostgreSQL server was given (`ORDERLY_TEST_POSTGRES_URL`; `make test` starts a
    /// throwaway cluster and sets it). Tests on PostgreSQL alone are `.enabled(if:)` it.
    public static let hasPostgres = ProcessInfo.processInfo.environment["ORDERLY_TEST_POSTGRES_URL"]?.isEmpty == false

    /// Why a PostgreSQL test was skipped, for `.enabled(if: TestDatabase.hasPostgres, TestDatabase.noPostgres)`.
    public static let noPostgres: Comment =
        "skipped: no PostgreSQL server given (ORDERLY_TEST_POSTGRES_URL; `make test` starts one)"

    /// The databases a storage test runs on: SQLite, and PostgreSQL when a server was given.
    /// Without one, the PostgreSQL cases are left out, and said so once on standard error.
    public static let kinds: [Database.Kind] = {
        guard hasPostgres else {
            FileHandle.standardError.write(Data("note: the PostgreSQL cases are \(noPostgres.rawValue)\n".utf8))
            return [.sqlite]
        }
        return [.sqlite, .postgres]
    }()

    /// The PostgreSQL cluster the tests use, or an error that says how to get one.
    public static func postgresServerURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["ORDERLY_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw TestDatabaseError(
                "the PostgreSQL tests need ORDERLY_TEST_POSTGRES_URL (postgres://user@host:port/postgres); `make test` starts a throwaway cluster and sets it"
            )
        }
        return url
    }

    /// Removes the database (closing it first).
    public let remove: @Sendable () async -> Void

    /// A new database; `remove()` it when done.
    public static func open(_ kind: Database.Kind) async throws -> TestDatabase {
        let name = "orderly_test_\(UUID().uuidString.prefix(8).lowercased())"
        let location: DatabaseLocation
        let cleanup: @Sendable () async -> Void
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
            location = try DatabaseLocation(url: "sqlite:\(directory)/test.sqlite")
            cleanup = { try? FileManager.default.removeItem(atPath: directory) }
        case .postgres:
            let serverLocation = try DatabaseLocation(url: try postgresServerURL())
            guard case .postgres(var settings) = serverLocation else {
                throw TestDatabaseError("ORDERLY_TEST_POSTGRES_URL is not a postgres:// URL")
            }
            let admin = try await Database.open(serverLocation, logger: logger)
            try await admin.read { try await $0.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
            settings.database = name
            location = .postgres(settings)
            cleanup = {
                try? await admin.read {
                    try await $0.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name) WITH (FORCE)").run()
                }
                await admin.close()
            }
        }
        let database: Database
        do {
            database = try await Database.open(location, logger: logger)
        } catch {
            await cleanup()
            throw error
        }
        return TestDatabase(kind: kind, location: location, database: database) {
            await database.close()
            await cleanup()
        }
    }

    /// Runs `body` with a new database, removed afterwards whether it passed or not.
    public static func with(_ kind: Database.Kind, _ body: (TestDatabase) async throws -> Void) async throws {
        let test = try await open(kind)
        do {
            try await body(test)
        } catch {
            await test.remove()
            throw error
        }
        await test.remove()
    }
}

public struct TestDatabaseError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
