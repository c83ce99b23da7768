import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// What the couriers on duty are told, stored once for all of them: each courier's inbox holds
/// the broadcasts numbered within their spells on duty, so a courier who comes on duty after one
/// never sees it, and one who goes off duty keeps what they were told. Broadcasts are numbered
/// from the inboxes' sequence, so a courier reads their own notifications and the broadcasts
/// over one cursor, and the spells are marked with the number reached when they start and end.
extension NotificationsRepository {
    /// The last number the inboxes' sequence gave, as SQL.
    static let sequenceNow = "(SELECT COALESCE(max(value), 0) FROM orderly_sequences WHERE name = 'notifications')"
    /// Where an open spell ends: it holds every broadcast to come.
    static let openSpell = Int64.max

    /// Starts a spell for `user` when they are now on duty and have none open, or ends the open
    /// one when they are not (a spell that held no broadcast is forgotten).
    func recordSpell(of user: UserID, onDuty: Bool, in transaction: Transaction) async throws {
        let id = user.description
        if onDuty {
            try await transaction.sql.raw(
                """
                INSERT INTO duty_spells (user_id, from_seq, to_seq)
                SELECT \(bind: id), \(unsafeRaw: Self.sequenceNow), \(bind: Self.openSpell)
                WHERE NOT EXISTS (SELECT 1 FROM duty_spells WHERE user_id = \(bind: id) AND to_seq = \(bind: Self.openSpell))
                """
            ).run()
        } else {
            try await transaction.sql.raw(
                """
                UPDATE duty_spells SET to_seq = \(unsafeRaw: Self.sequenceNow)
                WHERE user_id = \(bind: id) AND to_seq = \(bind: Self.openSpell)
                """
            ).run()
            try await transaction.sql.raw(
                "DELETE FROM duty_spells WHERE user_id = \(bind: id) AND to_seq = from_seq"
            ).run()
        }
    }

    /// The broadcasts (`b`) numbered within `user`'s spells on duty (`s`) and above `above`, as
    /// the SQL to follow `SELECT …`: what each read of their broadcasts starts from.
    private static func told(_ user: UserID, above: Int64) -> SQLQueryString {
        """
        FROM duty_spells s JOIN broadcasts b ON b.seq > s.from_seq AND b.seq <= s.to_seq
        WHERE s.user_id = \(bind: user.description) AND s.to_seq > \(bind: above) AND b.seq > \(bind: above)
        """
    }

    /// Up to `limit` of the broadcasts in `user`'s spells after `after`, oldest first, written in
    /// their language, with their read state.
    func broadcasts(to user: UserID, after: Int64, limit: Int, sql: any SQLDatabase) async throws
        -> [UserNotification]
    {
        let id = user.description
        let rows = try await sql.raw(
            "SELECT b.seq, b.id, b.doc " + Self.told(user, above: after) + " ORDER BY b.seq LIMIT \(bind: limit)"
        ).all()
        guard let first = try rows.first?.decode(column: "seq", as: Int64.self),
            let last = try rows.last?.decode(column: "seq", as: Int64.self)
        else { return [] }
        let locale = try await Self.locale(of: user, in: sql)
        // A broadcast was read when it was read alone, or at the first mark at or above it.
        let marks = try await sql.raw(
            """
            SELECT up_to_seq, read_at FROM broadcast_marks WHERE user_id = \(bind: id) AND up_to_seq >= \(bind: first)
            ORDER BY up_to_seq LIMIT \(bind: rows.count + 2)
            """
        ).all().map {
            (try $0.decode(column: "up_to_seq", as: Int64.self), try $0.decode(column: "read_at", as: Int64.self))
        }
        let readAlone = try await sql.raw(
            """
            SELECT seq, read_at FROM broadcast_reads WHERE user_id = \(bind: id)
            AND seq >= \(bind: first) AND seq <= \(bind: last)
            """
        ).all().reduce(into: [Int64: Int64]()) { read, row in
            read[try row.decode(column: "seq", as: Int64.self)] = try row.decode(column: "read_at", as: Int64.self)
        }
        return try rows.map { row in
            let seq = try row.decode(column: "seq", as: Int64.self)
            guard let broadcast = UUID(text: try row.decode(column: "id", as: String.self)) else {
                throw StorageError.unexpected("a broadcast's id is not a UUID")
            }
            let marked = marks.first { $0.0 >= seq }?.1
            let readAt = [readAlone[seq], marked].compactMap { $0 }.min()
            return try StoredDocument.decode(NotificationMessage.self, from: row).written(in: locale).notification(
                seq: seq, id: broadcast, of: user, readAt: readAt.map(Date.init(millisecondsSince1970:)))
        }
    }

    /// How many of the broadcasts in `user`'s spells are unread: those above their last mark,
    /// less those read alone.
    func unreadBroadcasts(of user: UserID, sql: any SQLDatabase) async throws -> Int64 {
        let id = user.description
        let mark = try await Self.lastMark(of: user, sql: sql)
        return try await sql.raw(
            "SELECT (SELECT count(*) " + Self.told(user, above: mark) + ")"
                + " - (SELECT count(*) FROM broadcast_reads WHERE user_id = \(bind: id) AND seq > \(bind: mark)) AS unread"
        ).first()?.decode(column: "unread", as: Int64.self) ?? 0
    }

    /// Marks the broadcasts in `user`'s spells up to `seq` (at most the last number given), or
    /// those of `ids`, read at `now`; returns how many were unread.
    func markBroadcastsRead(of user: UserID, upTo seq: Int64?, ids: [UUID]?, at now: Date, in transaction: Transaction)
        async throws -> Int64
    {
        let (id, sql) = (user.description, transaction.sql)
        let mark = try await Self.lastMark(of: user, sql: sql)
        if let ids {
            return Int64(
                try await sql.raw(
                    "INSERT INTO broadcast_reads (user_id, seq, read_at) SELECT \(bind: id), b.seq, "
                        + "\(bind: now.millisecondsSince1970) " + Self.told(user, above: mark)
                        + " AND b.id IN (\(binds: ids.map(\.lowercasedText)))"
                        + " ON CONFLICT (user_id, seq) DO NOTHING RETURNING seq"
                ).all().count)
        }
        guard let seq else { return 0 }
        let row = try await sql.raw(
            "SELECT (SELECT count(*) " + Self.told(user, above: mark) + " AND b.seq <= \(bind: seq)) AS told, "
                + """
                (SELECT count(*) FROM broadcast_reads WHERE user_id = \(bind: id) AND seq > \(bind: mark) AND seq <= \(bind: seq))
                    AS read_alone,
                \(unsafeRaw: Self.sequenceNow) AS last
                """
        ).first()
        guard let row else { return 0 }
        // A mark above the last number given would mark what is yet to come.
        let upTo = min(seq, try row.decode(column: "last", as: Int64.self))
        guard upTo > mark else { return 0 }
        let told = try row.decode(column: "told", as: Int64.self)
        if told == 0 && mark > 0 {
            // Nothing of theirs in between: the last mark reaches further.
            try await sql.raw(
                """
                UPDATE broadcast_marks SET up_to_seq = \(bind: upTo) WHERE user_id = \(bind: id) AND up_to_seq = \(bind: mark)
                """
            ).run()
        } else {
            try await sql.raw(
                """
                INSERT INTO broadcast_marks (user_id, up_to_seq, read_at)
                VALUES (\(bind: id), \(bind: upTo), \(bind: now.millisecondsSince1970))
                """
            ).run()
        }
        return told - (try row.decode(column: "read_alone", as: Int64.self))
    }

    /// The highest number up to which `user` marked every broadcast read; 0 when none.
    private static func lastMark(of user: UserID, sql: any SQLDatabase) async throws -> Int64 {
        try await sql.raw(
            "SELECT COALESCE(max(up_to_seq), 0) AS mark FROM broadcast_marks WHERE user_id = \(bind: user.description)"
        ).first()?.decode(column: "mark", as: Int64.self) ?? 0
    }

    /// Deletes the broadcasts older than `age`, then the spells, marks and reads that reach no
    /// broadcast left; returns how many broadcasts.
    func pruneBroadcasts(olderThan age: Duration) async throws -> Int {
        let removed = try await database.deleteRows(of: "broadcasts", where: "created_at", olderThan: age)
        // Below the oldest broadcast left (or every number given, when none is left), a spell,
        // a mark or a read changes nothing any more.
        let floor =
            try await database.read { sql in
                try await sql.raw(
                    "SELECT COALESCE((SELECT min(seq) FROM broadcasts), \(unsafeRaw: Self.sequenceNow) + 1) AS floor"
                ).first()?.decode(column: "floor", as: Int64.self)
            } ?? 0
        for (table, column) in [
            ("duty_spells", "to_seq"), ("broadcast_marks", "up_to_seq"), ("broadcast_reads", "seq"),
        ] {
            try await database.deleteRows(of: table, where: column, below: floor)
        }
        return removed
    }
}
