import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// All SQL of the notifications service: the inboxes, and `recipients`, the service's own copy
/// of who is in which store and which couriers are on duty.
struct NotificationsRepository: Sendable {
    let database: Database

    /// Keeps `user`'s copy unless a newer version is kept already, so that events applied out of
    /// order do no harm; and starts or ends their spell on duty as the copy kept says.
    func record(_ user: User, in transaction: Transaction) async throws {
        let kept = try await transaction.sql.raw(
            """
            INSERT INTO recipients (user_id, role, store_id, active, on_duty, locale, version)
            VALUES (\(bind: user.id.description), \(bind: user.role.rawValue), \(bind: user.storeID?.description),
                \(bind: user.active ? 1 : 0), \(bind: user.onDuty ? 1 : 0), \(bind: user.locale), \(bind: user.version))
            ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, store_id = excluded.store_id,
                active = excluded.active, on_duty = excluded.on_duty, locale = excluded.locale,
                version = excluded.version
            WHERE recipients.version < excluded.version
            RETURNING version
            """
        ).all()
        guard !kept.isEmpty else { return }
        try await recordSpell(of: user.id, onDuty: user.role == .courier && user.active && user.onDuty, in: transaction)
    }

    /// Deletes what is a closed account's alone: its notifications, the devices pushes went to,
    /// and its marks of what it read and when it was on duty.
    func erase(_ user: UserID, in transaction: Transaction) async throws {
        for table in ["notifications", "devices", "duty_spells", "broadcast_marks", "broadcast_reads"] {
            try await transaction.sql.raw(
                "DELETE FROM \(unsafeRaw: table) WHERE user_id = \(bind: user.description)"
            ).run()
        }
    }

    /// The active users in `audience`, in id order.
    /// The language `user` reads, as the identity events told it (`en` for one not known).
    static func locale(of user: UserID, in sql: any SQLDatabase) async throws -> String {
        try await sql.raw("SELECT locale FROM recipients WHERE user_id = \(bind: user.description)").first()?
            .decode(column: "locale", as: String.self) ?? User.defaultLocale
    }

    func users(in audience: Audience, in transaction: Transaction) async throws -> [Recipient] {
        var who: SQLQueryString = "1 = 0"
        if let store = audience.store { who = who + " OR store_id = \(bind: store.description)" }
        if let store = audience.storeManagers {
            who = who + " OR (store_id = \(bind: store.description) AND role IN ('owner', 'manager'))"
        }
        if audience.couriersOnDuty { who = who + " OR (role = 'courier' AND on_duty = 1)" }
        if let customer = audience.customer {
            who = who + " OR (user_id = \(bind: customer.description) AND role = 'customer')"
        }
        if let person = audience.person { who = who + " OR user_id = \(bind: person.description)" }
        return try await transaction.sql.raw(
            "SELECT user_id, locale FROM recipients WHERE active = 1 AND (" + who + ") ORDER BY user_id"
        ).all().compactMap { row in
            UserID(try row.decode(column: "user_id", as: String.self)).map {
                Recipient(id: $0, locale: (try? row.decode(column: "locale", as: String.self)) ?? User.defaultLocale)
            }
        }
    }

    /// Stores each message, numbered in order: in each of its users' inboxes, written in their
    /// language, or once for the couriers on duty; returns what was stored.
    func insert(_ messages: [Message], at now: Date, in transaction: Transaction) async throws -> Stored {
        let count = messages.reduce(0) { $0 + $1.to.count }
        guard count > 0 else { return Stored() }
        // One numbering step for all, and inserts of many rows each.
        var seq = try await transaction.advanceSequence("notifications", by: count) - Int64(count)
        var stored = Stored()
        var documents: [String] = []
        var shared: [(StoredBroadcast, document: String)] = []
        for message in messages {
            switch message.to {
            case .couriersOnDuty:
                seq += 1
                let written = NotificationMessage(
                    message.telling, type: message.type, data: message.data, locale: User.defaultLocale, at: now)
                shared.append(
                    (StoredBroadcast(seq: seq, id: UUID.random(), message: written), try StoredDocument.text(written)))
            case .users(let recipients):
                // Each language's message and document, written once per message.
                var written: [String: (NotificationMessage, String)] = [:]
                for recipient in recipients {
                    if written[recipient.locale] == nil {
                        let text = NotificationMessage(
                            message.telling, type: message.type, data: message.data, locale: recipient.locale, at: now)
                        written[recipient.locale] = (text, try StoredDocument.text(text))
                    }
                    seq += 1
                    let (text, document) = written[recipient.locale]!
                    stored.notifications.append(
                        StoredNotification(userID: recipient.id, seq: seq, id: UUID.random(), message: text))
                    documents.append(document)
                }
            }
        }
        let rows: [[any Encodable & Sendable]] = zip(stored.notifications, documents).map { row, document in
            [row.seq, row.id.lowercasedText, row.userID.description, now.millisecondsSince1970, document]
        }
        try await Self.insertRows(rows, into: "notifications (seq, id, user_id, created_at, doc)", in: transaction)
        try await Self.insertRows(
            shared.map { [$0.0.seq, $0.0.id.lowercasedText, now.millisecondsSince1970, $0.document] },
            into: "broadcasts (seq, id, created_at, doc)", in: transaction)
        stored.broadcasts = shared.map(\.0)
        return stored
    }

    /// Inserts `rows` into `table` (the code's own text, with its columns), at most 1,000 rows a
    /// statement, which keeps within both databases' limits on bound values.
    private static func insertRows(
        _ rows: [[any Encodable & Sendable]], into table: String, in transaction: Transaction
    ) async throws {
        for start in stride(from: 0, to: rows.count, by: 1000) {
            var insert: SQLQueryString = "INSERT INTO \(unsafeRaw: table) VALUES "
            for (index, values) in rows[start..<min(start + 1000, rows.count)].enumerated() {
                insert = insert + (index == 0 ? "" : ", ") + "(\(binds: values))"
            }
            try await transaction.sql.raw(insert).run()
        }
    }

    /// Up to `limit` of `user`'s notifications after `after`, oldest first, and how many of
    /// theirs are unread, read together. A courier's hold the broadcasts of their spells on duty
    /// too.
    func list(of user: UserID, courier: Bool, after: Int64, limit: Int) async throws -> (
        notifications: [UserNotification], unread: Int64
    ) {
        let (rows, broadcasts, unread) = try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT seq, id, doc, read_at FROM notifications WHERE user_id = \(bind: user.description)
                AND seq > \(bind: after) ORDER BY seq LIMIT \(bind: limit)
                """
            ).all()
            var unread = try await Self.unread(of: user, sql: sql)
            var broadcasts: [UserNotification] = []
            if courier {
                broadcasts = try await self.broadcasts(to: user, after: after, limit: limit, sql: sql)
                unread += try await unreadBroadcasts(of: user, sql: sql)
            }
            return (rows, broadcasts, unread)
        }
        let own = try rows.map { row in
            let (stored, readAt) = try Self.stored(row, of: user)
            return stored.message.notification(seq: stored.seq, id: stored.id, of: user, readAt: readAt)
        }
        guard !broadcasts.isEmpty else { return (own, unread) }
        return (Array((own + broadcasts).sorted { $0.seq < $1.seq }.prefix(limit)), unread)
    }

    /// Marks `user`'s unread notifications up to `seq`, or those of `ids`, read at `now` (a
    /// courier's broadcasts too); returns how many it marked and how many are unread after.
    func markRead(of user: UserID, courier: Bool, upTo seq: Int64?, ids: [UUID]?, at now: Date) async throws
        -> NotificationReadState
    {
        try await database.transaction { transaction in
            var which: SQLQueryString = "user_id = \(bind: user.description) AND read_at IS NULL"
            if let seq { which = which + " AND seq <= \(bind: seq)" }
            if let ids {
                which = which + " AND id IN (\(binds: ids.map(\.lowercasedText)))"
            }
            var marked = Int64(
                try await transaction.sql.raw(
                    "UPDATE notifications SET read_at = \(bind: now.millisecondsSince1970) WHERE " + which
                        + " RETURNING seq"
                ).all().count)
            var unread = try await Self.unread(of: user, sql: transaction.sql)
            if courier {
                marked += try await markBroadcastsRead(of: user, upTo: seq, ids: ids, at: now, in: transaction)
                unread += try await unreadBroadcasts(of: user, sql: transaction.sql)
            }
            return NotificationReadState(marked: marked, unreadCount: unread)
        }
    }

    /// The role of `user`, as the identity events told it; nil for one not known.
    func role(of user: UserID) async throws -> Role? {
        try await database.read { sql in
            try await sql.raw("SELECT role FROM recipients WHERE user_id = \(bind: user.description)").first()
                .flatMap { Role(rawValue: try $0.decode(column: "role", as: String.self)) }
        }
    }

    /// The notification numbered `seq` in `user`'s own inbox, as it was stored, and when it was
    /// read.
    func notification(of user: UserID, seq: Int64) async throws -> (stored: StoredNotification, readAt: Date?)? {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT seq, id, doc, read_at FROM notifications
                WHERE user_id = \(bind: user.description) AND seq = \(bind: seq)
                """
            ).first()
        }.map { try Self.stored($0, of: user) }
    }

    /// A row of `user`'s inbox (`seq`, `id`, `doc`, `read_at`): the notification as stored, and
    /// when it was read.
    private static func stored(_ row: any SQLRow, of user: UserID) throws -> (
        stored: StoredNotification, readAt: Date?
    ) {
        guard let id = UUID(text: try row.decode(column: "id", as: String.self)) else {
            throw StorageError.unexpected("a notification's id is not a UUID")
        }
        return (
            StoredNotification(
                userID: user, seq: try row.decode(column: "seq", as: Int64.self), id: id,
                message: try StoredDocument.decode(NotificationMessage.self, from: row)),
            try row.decode(column: "read_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    /// How many of `user`'s notifications are unread (from the index of the unread ones).
    private static func unread(of user: UserID, sql: any SQLDatabase) async throws -> Int64 {
        try await sql.raw(
            "SELECT count(*) AS unread FROM notifications WHERE user_id = \(bind: user.description) AND read_at IS NULL"
        ).first()?.decode(column: "unread", as: Int64.self) ?? 0
    }
}

/// Who hears of an event: the users of `store`, its owners and managers, the couriers on duty,
/// a customer (the one who placed the order or paid), and one person by id (the courier
/// carrying the order, the staff member who took the payment), as the event has it.
struct Audience: Sendable, Hashable {
    var store: StoreID?
    /// The owners and managers of this store.
    var storeManagers: StoreID?
    var couriersOnDuty = false
    /// This user, if they are a customer.
    var customer: UserID?
    /// This user, whatever their role.
    var person: UserID?

    /// The couriers on duty alone: what they are told is stored once for all of them.
    static let couriersOnDuty = Audience(couriersOnDuty: true)
}

/// What one telling is stored for: each of these users, or the couriers on duty as one.
enum Addressees: Sendable {
    case users([Recipient])
    case couriersOnDuty

    /// How many numbers of the sequence it takes.
    var count: Int {
        switch self {
        case .users(let recipients): recipients.count
        case .couriersOnDuty: 1
        }
    }
}

/// A telling to store, with its type and the ids its notifications open.
struct Message: Sendable {
    var telling: Telling
    var type: String
    var data: [String: String]
    var to: Addressees
}

/// What was stored: each user's notifications, and what was told to the couriers on duty.
struct Stored: Sendable {
    var notifications: [StoredNotification] = []
    var broadcasts: [StoredBroadcast] = []

    static func += (stored: inout Stored, more: Stored) {
        stored.notifications += more.notifications
        stored.broadcasts += more.broadcasts
    }
}

/// What the couriers on duty were told, stored once for all of them in the default language.
struct StoredBroadcast: Sendable {
    var seq: Int64
    var id: UUID
    var message: NotificationMessage

    var wakeUp: WakeUp { WakeUp(couriersOnDutyAt: seq) }

    /// What `recipient` is pushed of it.
    func notification(to recipient: Recipient) -> StoredNotification {
        StoredNotification(userID: recipient.id, seq: seq, id: id, message: message.written(in: recipient.locale))
    }
}

/// A notification as stored in one user's inbox: what its push carries.
struct StoredNotification: Sendable {
    var userID: UserID
    var seq: Int64
    var id: UUID
    var message: NotificationMessage
    /// The trace of what caused it, which its push continues (not stored).
    var trace: String? = nil

    var wakeUp: WakeUp { WakeUp(userID: userID, seq: seq) }
}

/// Someone notifications go to, and the language they read.
struct Recipient: Sendable, Hashable {
    var id: UserID
    var locale: String
}

/// What the recipients of one telling who read one language are told, stored once per
/// recipient beside the row's own `seq`, `id`, `user_id` and `read_at`. The keys and arguments
/// are absent from notifications stored before they were kept.
struct NotificationMessage: Codable, Sendable {
    var type: String
    var title: String
    var body: String
    var titleKey: String?
    var bodyKey: String?
    var args: [String]?
    var data: [String: String]
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case type, title, body, args, data
        case titleKey = "title_key"
        case bodyKey = "body_key"
        case createdAt = "created_at"
    }

    init(_ telling: Telling, type: String, data: [String: String], locale: String, at createdAt: Date) {
        self.type = type
        self.title = NotificationTexts.render(telling.titleKey, telling.args, locale: locale)
        self.body = NotificationTexts.render(telling.bodyKey, telling.args, locale: locale)
        self.titleKey = telling.titleKey
        self.bodyKey = telling.bodyKey
        self.args = telling.args
        self.data = data
        self.createdAt = createdAt
    }

    /// The same message written in `locale`, from its keys and arguments (as it is, when it
    /// was stored without them).
    func written(in locale: String) -> NotificationMessage {
        guard let titleKey, let bodyKey else { return self }
        return NotificationMessage(
            Telling(titleKey, bodyKey, args ?? []), type: type, data: data, locale: locale, at: createdAt)
    }

    /// It as `user`'s notification numbered `seq`.
    func notification(seq: Int64, id: UUID, of user: UserID, readAt: Date?) -> UserNotification {
        UserNotification(
            seq: seq, id: id, userID: user, type: type, title: title, body: body, titleKey: titleKey, bodyKey: bodyKey,
            args: args, data: data, createdAt: createdAt, readAt: readAt)
    }
}
