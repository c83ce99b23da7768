import Metrics
import NIOCore
import SQLKit
import Synchronization

/// Write transactions on SQLite's one writer connection, committed in groups.
///
/// Callers queue their transactions; one writer task, on the connection's thread, takes them
/// in order and runs each inside a savepoint of a shared SQLite transaction, then commits the
/// group (up to 256, or whatever was queued) at once and only then wakes its callers. A
/// transaction that throws is rolled back to its savepoint and its caller gets the error; the
/// others are unaffected. If the commit fails, every member gets the error and nothing of the
/// group is kept. Under load one commit (one write of the WAL) serves many transactions, and the
/// writer never waits for a caller's thread between them; a transaction alone costs two
/// statements more than it would without groups.
final class SQLiteGroupCommit: Sendable {
    private let connection: EmbeddedSQLiteConnection
    private let sql: any SQLDatabase
    private let maximumGroup = 256

    private struct Job: Sendable {
        /// Runs the transaction in a savepoint; returns the error that broke the connection's
        /// transaction (which ends the group), if that happened.
        let execute: @Sendable (any SQLDatabase) async -> (any Error)?
        /// Wakes the caller once the group ended (with the commit's error, if any).
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var writerRunning = false
    }
    private let queue = Mutex(Queue())
    private let checkpointRequested = Atomic(false)
    private let commitTime = Metrics.Timer(label: "orderly_db_group_commit_duration_seconds")
    private let commits = Counter(label: "orderly_db_group_commits_total")
    private let committedTransactions = Counter(label: "orderly_db_group_commit_transactions_total")

    init(connection: EmbeddedSQLiteConnection, sql: any SQLDatabase) {
        self.connection = connection
        self.sql = sql
    }

    /// Runs `body` as one member of a group; returns once the group committed.
    func run<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { body in
            // The caller stays suspended until its job has run: `body` never outlives this call.
            let outcome = Mutex<Result<T, any Error>?>(nil)
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let job = Job(
                    execute: { sql in
                        do {
                            try await self.control("SAVEPOINT orderly_member")
                        } catch {
                            outcome.withLock { $0 = .failure(error) }
                            return error
                        }
                        do {
                            let result = try await body(sql)
                            try await self.control("RELEASE orderly_member")
                            outcome.withLock { $0 = .success(result) }
                            return nil
                        } catch {
                            outcome.withLock { $0 = .failure(error) }
                            do {
                                try await self.control("ROLLBACK TO orderly_member")
                                try await self.control("RELEASE orderly_member")
                                return nil
                            } catch let broken {
                                return broken
                            }
                        }
                    },
                    finish: { error in
                        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                    })
                enqueue(job)
            }
            guard let result = outcome.withLock({ $0 }) else {
                throw StorageError.unexpected("a group commit ended without running a transaction")
            }
            return try result.get()
        }
    }

    /// Asks the writer to checkpoint the WAL after its next group (see `Database.open`).
    func requestCheckpoint() {
        checkpointRequested.store(true, ordering: .relaxed)
    }

    /// Runs a transaction-control statement straight on the connection (the writer runs on its
    /// thread, so this is inline), without building an SQLKit query for it.
    private func control(_ statement: String) async throws {
        _ = try await connection.run { try $0.query(statement, []) }
    }

    private func enqueue(_ job: Job) {
        let startWriter = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.writerRunning = true }
            return !queue.writerRunning
        }
        if startWriter {
            Task(executorPreference: connection.thread) { await self.write() }
        }
    }

    /// Takes up to `limit` queued jobs; stops the writer when there are none.
    private func take(_ limit: Int, stopWhenEmpty: Bool) -> [Job] {
        queue.withLock { queue in
            let jobs = Array(queue.jobs.prefix(limit))
            queue.jobs.removeFirst(jobs.count)
            if jobs.isEmpty && stopWhenEmpty { queue.writerRunning = false }
            return jobs
        }
    }

    /// The writer: groups after groups, until the queue is empty.
    private func write() async {
        while true {
            var members = take(maximumGroup, stopWhenEmpty: true)
            guard !members.isEmpty else { return }
            var failure: (any Error)?
            do {
                try await control("BEGIN IMMEDIATE")
            } catch {
                let wakeUps = members.map(\.finish)
                members = []
                for wake in wakeUps { wake(error) }
                continue
            }
            var next = 0
            // Keep taking what arrives while the group runs, up to its size.
            while next < members.count, failure == nil {
                failure = await members[next].execute(sql)
                next += 1
                if next == members.count, members.count < maximumGroup {
                    members += take(maximumGroup - members.count, stopWhenEmpty: false)
                }
            }
            if failure == nil {
                let started = NIODeadline.now()
                do { try await control("COMMIT") } catch { failure = error }
                if failure == nil {
                    commitTime.recordNanoseconds((NIODeadline.now() - started).nanoseconds)
                    commits.increment()
                    committedTransactions.increment(by: members.count)
                }
            }
            if failure != nil { try? await control("ROLLBACK") }
            // Let go of the transactions' code before waking their callers, who may then
            // return (`run` checks that nothing kept it). Members after a broken one never
            // ran: they get the same error.
            let wakeUps = members.map(\.finish)
            members = []
            for wake in wakeUps { wake(failure) }
            if checkpointRequested.exchange(false, ordering: .relaxed) {
                try? await control("PRAGMA wal_checkpoint(PASSIVE)")
            }
        }
    }
}
