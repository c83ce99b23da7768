import Crypto
import Domain
public import Events
import Foundation
public import SQLKit
import Synchronization

/// One open transaction: its SQL connection and what it will publish when it commits.
public final class Transaction: Sendable {
    /// The connection, for queries and SQLKit's builders. Bind values with `\(bind:)`; the
    /// placeholders come out right for either database.
    public let sql: any SQLDatabase
    public let kind: Database.Kind
    /// On SQLite, the writer connection, for the storage layer's own statements (`execute`).
    let connection: EmbeddedSQLiteConnection?
    private let events = Mutex<[DomainEvent]>([])

    init(sql: any SQLDatabase, kind: Database.Kind, connection: EmbeddedSQLiteConnection? = nil) {
        self.sql = sql
        self.kind = kind
        self.connection = connection
    }

    /// Queues `event` for the service's stream; it is written to the outbox just before this
    /// transaction commits, so the event exists exactly when the change it reports does.
    public func publish(_ event: DomainEvent) {
        var event = event
        // The trace of the request or event that caused it, which its consumers continue.
        if event.trace == nil { event.trace = TraceContext.current() }
        events.withLock { [event] in $0.append(event) }
    }

    /// Holds `lock` until this transaction ends, waiting for another transaction holding it: on
    /// PostgreSQL a transaction-level advisory lock keyed by the name's SHA-256; on SQLite
    /// nothing, as its one writer runs transactions one at a time anyway.
    public func lock(_ lock: Lock) async throws {
        guard kind == .postgres else { return }
        try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.advisoryKey(lock.name)))").run()
    }

    /// Holds each of `locks` once, taken in the order of their names, so that two transactions
    /// taking some of the same locks never wait on each other in a circle.
    public func lock(_ locks: some Sequence<Lock>) async throws {
        for lock in Set(locks).sorted() { try await self.lock(lock) }
    }

    /// The number PostgreSQL's advisory locks know the lock named `name` by: the first 8 bytes
    /// of the name's SHA-256.
    static func advisoryKey(_ name: String) -> Int64 {
        SHA256.hash(data: Array(name.utf8)).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }

    /// The next number of the named sequence (1, 2, 3, …). The counter row stays locked until
    /// this transaction ends, so numbers become visible in commit order and a reader that has
    /// seen number N never later finds a smaller one appear: the property a "changed since
    /// cursor" list and the outbox need.
    public func nextSequence(_ name: String) async throws -> Int64 {
        try await advanceSequence(name, by: 1)
    }

    /// Takes `count` numbers at once and returns the last; the first is `last - count + 1`.
    public func advanceSequence(_ name: String, by count: Int) async throws -> Int64 {
        let row = try await execute(
            """
            INSERT INTO orderly_sequences (name, value) VALUES ($1, $2)
            ON CONFLICT (name) DO UPDATE SET value = orderly_sequences.value + excluded.value
            RETURNING value
            """, [.text(name), .integer(Int64(count))]
        ).first
        guard let row else { throw StorageError.unexpected("the sequence \(name) returned no value") }
        return try row.decode(column: "value", as: Int64.self)
    }

    /// Writes the queued events to the outbox; true when there were any.
    func writeOutbox() async throws -> Bool {
        let queued = events.withLock { events in
            defer { events = [] }
            return events
        }
        guard !queued.isEmpty else { return false }
        let now = Date.nowMilliseconds
        // SQLite numbers the rows itself (see the outbox migration); PostgreSQL takes the numbers
        // from the counter, whose row lock then orders the commits.
        var seq: Int64?
        if kind == .postgres {
            seq = try await advanceSequence(OutboxSchema.sequence, by: queued.count) - Int64(queued.count)
        }
        var insert =
            "INSERT INTO orderly_outbox (event_id, type, store_id, aggregate_id, occurred_at, payload, trace, created_at"
        insert += seq == nil ? ") VALUES " : ", seq) VALUES "
        var binds: [SQLiteValue] = []
        for event in queued {
            insert += binds.isEmpty ? "(" : ", ("
            var row: [SQLiteValue] = [
                .text(event.id.lowercasedText), .text(event.type), event.storeID.map { .text($0.description) } ?? .null,
                .text(event.aggregateID), .integer(event.occurredAt.millisecondsSince1970), .text(event.payload.json),
                event.trace.map { .text($0) } ?? .null, .integer(now),
            ]
            if let previous = seq {
                seq = previous + 1
                row.append(.integer(previous + 1))
            }
            for (index, value) in row.enumerated() {
                binds.append(value)
                insert += index == 0 ? "$\(binds.count)" : ", $\(binds.count)"
            }
            insert += ")"
        }
        try await execute(insert, binds)
        return true
    }
}

/// A storage failure that is the program's fault or the database's, not the caller's.
public enum StorageError: Error, Hashable, Sendable, CustomStringConvertible {
    case unexpected(String)
    case migrationHistoryDiffers(scope: String, version: Int, recorded: String, expected: String)
    case invalidMigrations(String)
    /// The schema is newer than this build, and `step` does not declare it readable by it.
    case schemaTooNew(scope: String, schema: Int, known: Int, step: MigrationStatus.Step)

    public var description: String {
        switch self {
        case .unexpected(let what): return "storage: \(what)"
        case .migrationHistoryDiffers(let scope, let version, let recorded, let expected):
            return
                "migration \(scope) #\(version) was applied as \"\(recorded)\" but is now \"\(expected)\"; the database belongs to another version of the service"
        case .invalidMigrations(let what): return "invalid migrations: \(what)"
        case .schemaTooNew(let scope, let schema, let known, let step):
            return
                "the \(scope) schema is at version \(schema), newer than this build's \(known), and step \(step.version) \"\(step.name)\" is not readable by this build (\(step.readers.map { "it needs a build knowing \($0) steps" } ?? "it declares no earlier reader")); run the newer release, or restore the backup taken before the upgrade (docs/OPERATIONS.md, Upgrading)"
        }
    }
}
