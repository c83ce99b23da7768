import Foundation
import SQLKit
import Storage

/// The gateway's SQL of mail waiting to be sent. A message is written in the transaction of
/// the change it tells of, so a committed change always mails and a rolled-back one never
/// does; `MailSender` takes it from here. A sent or dead message keeps only its kind,
/// recipient and last error: its body (a reset link among them) is erased.
struct MailOutbox: Sendable {
    let database: Database

    /// A message taken to be sent, with how many attempts were made before.
    struct Due: Sendable {
        let id: String
        let attempts: Int
        let mail: OutgoingMail?
    }

    /// What `orderly pipeline` and `/metrics` show.
    struct Figures: Sendable, Equatable {
        var queued: Int
        var oldestQueuedAt: Int64?
        var dead: Int
    }

    func enqueue(_ mail: OutgoingMail, in transaction: Transaction) async throws {
        let now = Date.nowMilliseconds
        try await transaction.sql.raw(
            """
            INSERT INTO mail_outbox (id, kind, recipient, status, attempts, next_at, created_at, doc)
            VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: mail.kind.rawValue), \(bind: mail.to), 'queued', 0,
                \(bind: now), \(bind: now), \(bind: try StoredDocument.text(mail)))
            """
        ).run()
    }

    /// Up to `limit` queued messages due by `now`, oldest first, each leased until `leaseEnd`:
    /// another replica leaves it alone until then, and a sender that dies holding one lets it
    /// fall due again. A body that cannot be read comes as nil, for the sender to mark dead.
    func take(dueBy now: Int64, leaseUntil leaseEnd: Int64, limit: Int) async throws -> [Due] {
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, attempts, next_at, doc FROM mail_outbox
                WHERE status = 'queued' AND next_at <= \(bind: now) ORDER BY next_at LIMIT \(bind: limit)
                """
            ).all()
        }
        let candidates = try rows.map { row in
            (
                nextAt: try row.decode(column: "next_at", as: Int64.self),
                due: Due(
                    id: try row.decode(column: "id", as: String.self),
                    attempts: Int(try row.decode(column: "attempts", as: Int64.self)),
                    mail: try row.decode(column: "doc", as: String?.self).flatMap {
                        try? StoredDocument.decode(OutgoingMail.self, from: $0)
                    })
            )
        }
        guard !candidates.isEmpty else { return [] }
        // One transaction leases the batch: what another replica leased meanwhile is skipped.
        return try await database.transaction { transaction in
            var leased: [Due] = []
            for candidate in candidates {
                let won =
                    try await transaction.sql.raw(
                        """
                        UPDATE mail_outbox SET next_at = \(bind: leaseEnd)
                        WHERE id = \(bind: candidate.due.id) AND status = 'queued' AND next_at = \(bind: candidate.nextAt)
                        RETURNING id
                        """
                    ).first() != nil
                if won { leased.append(candidate.due) }
            }
            return leased
        }
    }

    func markSent(_ due: Due) async throws {
        try await finish(due, status: "sent", error: nil)
    }

    /// Gives up on `due` after an error that trying again cannot mend, or its last attempt.
    func markDead(_ due: Due, error: String) async throws {
        try await finish(due, status: "dead", error: error)
    }

    /// Counts a failed attempt and makes the message due again at `next`.
    func retry(_ due: Due, at next: Int64, error: String) async throws {
        try await database.transaction { transaction in
            try await transaction.sql.raw(
                """
                UPDATE mail_outbox SET attempts = \(bind: due.attempts + 1), next_at = \(bind: next),
                    last_error = \(bind: error)
                WHERE id = \(bind: due.id) AND status = 'queued'
                """
            ).run()
        }
    }

    private func finish(_ due: Due, status: String, error: String?) async throws {
        try await database.transaction { transaction in
            try await transaction.sql.raw(
                """
                UPDATE mail_outbox SET status = \(bind: status), attempts = \(bind: due.attempts + 1),
                    finished_at = \(bind: Date.nowMilliseconds), last_error = \(bind: error), doc = NULL
                WHERE id = \(bind: due.id) AND status = 'queued'
                """
            ).run()
        }
    }

    func figures() async throws -> Figures {
        try await database.read { sql in
            var figures = Figures(queued: 0, oldestQueuedAt: nil, dead: 0)
            for row in try await sql.raw(
                """
                SELECT status, COUNT(*) AS n, MIN(created_at) AS oldest FROM mail_outbox
                WHERE status IN ('queued', 'dead') GROUP BY status
                """
            ).all() {
                let count = Int(try row.decode(column: "n", as: Int64.self))
                if try row.decode(column: "status", as: String.self) == "queued" {
                    figures.queued = count
                    figures.oldestQueuedAt = try row.decode(column: "oldest", as: Int64?.self)
                } else {
                    figures.dead = count
                }
            }
            return figures
        }
    }

    /// Deletes sent and dead messages finished more than `age` ago; returns how many.
    func removeFinished(olderThan age: Duration) async throws -> Int {
        try await database.deleteRows(of: "mail_outbox", where: "finished_at", olderThan: age)
    }
}
