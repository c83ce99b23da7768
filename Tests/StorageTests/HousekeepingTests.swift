import Domain
import Foundation
import Logging
import SQLKit
import Storage
import Synchronization
import TestSupport
import Testing

@Suite("Housekeeping")
struct HousekeepingTests {
    static let logger = Logger(label: "orderly.tests.housekeeping")
    static let hour: Int64 = 3_600_000

    /// Writes `count` idempotency records that expire at `expiresAt` and `count` inbox records
    /// applied at `appliedAt`.
    static func write(count: Int, expiresAt: Int64, appliedAt: Int64, in database: Database) async throws {
        try await database.transaction { transaction in
            for _ in 0..<count {
                let id = UUID().uuidString
                try await transaction.sql.raw(
                    """
                    INSERT INTO orderly_idempotency (scope, idempotency_key, request_hash, response, created_at, expires_at)
                    VALUES ('tests', \(bind: id), 'hash', '{}', 0, \(bind: expiresAt))
                    """
                ).run()
                try await transaction.sql.raw(
                    "INSERT INTO orderly_inbox (consumer, event_id, applied_at) VALUES ('tests', \(bind: id), \(bind: appliedAt))"
                ).run()
            }
        }
    }

    static func count(_ table: String, in database: Database) async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()?.decode(
                column: "n", as: Int.self)
        } ?? -1
    }

    @Test(
        "expired idempotency records and old inbox records go, in batches; the rest stay",
        arguments: TestDatabase.kinds)
    func standardJobs(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "tests", [])
            let now = Date.nowMilliseconds
            // More than two batches of each, some sharing one millisecond, and some to keep.
            try await Self.write(count: 1_500, expiresAt: now - Self.hour, appliedAt: now - 3 * Self.hour, in: database)
            try await Self.write(count: 1_000, expiresAt: now - 1, appliedAt: now - 2 * Self.hour - 1, in: database)
            try await Self.write(count: 10, expiresAt: now + Self.hour, appliedAt: now - Self.hour, in: database)

            let housekeeping = Housekeeping(
                jobs: Housekeeping.standardJobs(database: database, inboxRetention: .seconds(2 * 3600)),
                logger: Self.logger)
            let removed = await housekeeping.runOnce()
            #expect(removed == ["idempotency records": 2_500, "inbox records": 2_500])
            #expect(try await Self.count("orderly_idempotency", in: database) == 10)
            #expect(try await Self.count("orderly_inbox", in: database) == 10)
            #expect(await housekeeping.runOnce() == ["idempotency records": 0, "inbox records": 0])
        }
    }

    @Test("runs at start and on its interval; a failing job does not stop the others")
    func schedule() async throws {
        let runs = Atomic<Int>(0)
        let housekeeping = Housekeeping(
            jobs: [
                Housekeeping.Job("broken") { throw StorageError.unexpected("the disk is on fire") },
                Housekeeping.Job("counting") {
                    runs.add(1, ordering: .relaxed)
                    return 1
                },
            ],
            interval: .milliseconds(20), logger: Self.logger)
        let running = Task { try await housekeeping.run() }
        #expect(await waitUntil { runs.load(ordering: .relaxed) >= 3 })
        running.cancel()
        try await running.value
    }
}
