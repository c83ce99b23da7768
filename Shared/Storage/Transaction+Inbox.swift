import Domain
public import Events
public import Foundation
import SQLKit

extension Transaction {
    /// Records that `consumer` applied the event `id` in this transaction; false when it
    /// already had, and the effect must then be skipped. On PostgreSQL a second delivery
    /// arriving while the first is still uncommitted waits for it, then finds the record.
    public func recordApplied(event id: UUID, consumer: String) async throws -> Bool {
        try await recordApplied(events: [id], consumer: consumer).contains(id)
    }

    /// `recordApplied(event:consumer:)` for several events at once; returns those not applied
    /// before, whose effects are to be applied now.
    public func recordApplied(events ids: [UUID], consumer: String) async throws -> Set<UUID> {
        var fresh: Set<UUID> = []
        let now = Date.nowMilliseconds
        // At most 300 events (601 values) a statement, within both databases' limits.
        for start in stride(from: 0, to: ids.count, by: 300) {
            let chunk = ids[start..<min(start + 300, ids.count)]
            let rows = chunk.indices.map { "($1, $\(2 * ($0 - start) + 2), $\(2 * ($0 - start) + 3))" }
            let inserted = try await execute(
                """
                INSERT INTO orderly_inbox (consumer, event_id, applied_at) VALUES \(rows.joined(separator: ", "))
                ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id
                """, [.text(consumer)] + chunk.flatMap { [.text($0.lowercasedText), .integer(now)] })
            for row in inserted {
                if let id = UUID(text: try row.decode(column: "event_id", as: String.self)) { fresh.insert(id) }
            }
        }
        return fresh
    }
}

extension Database {
    /// Applies `effect` for `event` once per `consumer`, however often the event is delivered:
    /// the inbox record and the effect commit together. Returns false for a repeat.
    @discardableResult
    public func applyOnce(
        _ event: DomainEvent, consumer: String, _ effect: @Sendable (Transaction) async throws -> Void
    ) async throws -> Bool {
        try await transaction { transaction in
            guard try await transaction.recordApplied(event: event.id, consumer: consumer) else { return false }
            try await effect(transaction)
            return true
        }
    }

    /// Deletes inbox records older than `retention`, which must be longer than any event stays
    /// in a stream or pending; returns how many.
    @discardableResult
    public func pruneInbox(olderThan retention: Duration) async throws -> Int {
        try await deleteRows(of: "orderly_inbox", where: "applied_at", olderThan: retention)
    }
}
