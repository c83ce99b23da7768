import Foundation
public import Logging
import SQLKit
public import ServiceLifecycle

/// Deletes what has outlived its use, on a schedule: every service's expired idempotency records
/// and old inbox records, and what the service adds (the gateway's expired refresh tokens). Runs
/// each job when the process starts and every `interval` after; a job that fails is logged and
/// tried again next time, and does not stop the others. Replicas may run it together: each
/// delete is idempotent.
public struct Housekeeping: Service {
    /// One kind of clean-up: returns how many rows it removed.
    public struct Job: Sendable {
        public var name: String
        public var run: @Sendable () async throws -> Int

        public init(_ name: String, run: @escaping @Sendable () async throws -> Int) {
            self.name = name
            self.run = run
        }
    }

    public let jobs: [Job]
    public let interval: Duration
    private let logger: Logger

    public init(jobs: [Job], interval: Duration = .seconds(600), logger: Logger) {
        self.jobs = jobs
        self.interval = interval
        self.logger = logger
    }

    /// The jobs every service with a database needs. Inbox records are kept for
    /// `inboxRetention`, which must be longer than an event can be delivered again (the outbox
    /// republishes up to its sent retention, a stale pending entry is retried until it is
    /// dead-lettered).
    public static func standardJobs(database: Database, inboxRetention: Duration = .seconds(7 * 24 * 3600)) -> [Job] {
        [
            Job("idempotency records") { try await IdempotencyStore(database: database).removeExpired() },
            Job("inbox records") { try await database.pruneInbox(olderThan: inboxRetention) },
        ]
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await runOnce()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Runs every job once; returns how many rows each job that did not fail removed.
    @discardableResult
    public func runOnce() async -> [String: Int] {
        var removed: [String: Int] = [:]
        for job in jobs {
            do {
                let count = try await job.run()
                removed[job.name] = count
                if count > 0 {
                    logger.info(
                        "housekeeping removed rows",
                        metadata: ["housekeeping.job": "\(job.name)", "db.rows": "\(count)"])
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning(
                    "housekeeping failed; trying again next time",
                    metadata: ["housekeeping.job": "\(job.name)", "error": "\(error)"])
            }
        }
        return removed
    }
}

extension Database {
    /// The same for the rows older than `age`: whose `column` is more than `age` before now.
    @discardableResult
    public func deleteRows(
        of table: String, where column: String, olderThan age: Duration, and condition: String? = nil
    )
        async throws -> Int
    {
        try await deleteRows(
            of: table, where: column, below: Date.nowMilliseconds - Int64(age.wholeMilliseconds), and: condition)
    }

    /// Deletes the rows of `table` whose `column` (an indexed time in milliseconds) is below
    /// `cutoff` and that meet `condition` (SQL over the table's columns, when given), about
    /// `batchSize` per transaction so that a large backlog never holds the writer long; returns
    /// how many. `table`, `column` and `condition` are the code's own text, never input.
    @discardableResult
    public func deleteRows(
        of table: String, where column: String, below cutoff: Int64, and condition: String? = nil,
        batchSize: Int = 1000
    ) async throws -> Int {
        let also = condition.map { " AND (\($0))" } ?? ""
        var total = 0
        while true {
            let (deleted, done) = try await transaction { transaction in
                // The time of the batch's last row; with fewer rows left, everything below the cutoff.
                let last = try await transaction.sql.raw(
                    """
                    SELECT \(unsafeRaw: column) AS t FROM \(unsafeRaw: table)
                    WHERE \(unsafeRaw: column) < \(bind: cutoff)\(unsafeRaw: also)
                    ORDER BY \(unsafeRaw: column) LIMIT 1 OFFSET \(bind: batchSize - 1)
                    """
                ).first()?.decode(column: "t", as: Int64.self)
                let rows = try await transaction.sql.raw(
                    """
                    DELETE FROM \(unsafeRaw: table) WHERE \(unsafeRaw: column) < \(bind: last.map { $0 + 1 } ?? cutoff)\(unsafeRaw: also)
                    RETURNING 1 AS one
                    """
                ).all()
                return (rows.count, last == nil)
            }
            total += deleted
            if done || Task.isCancelled { return total }
        }
    }
}
