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
    /// order do no harm.
    func record(_ user: User, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO recipients (user_id, role, store_id, active, on_duty, locale, version)
            VALUES (\(bind: user.id.description), \(bind: user.role.rawValue), \(bind: user.storeID?.description),
                \(bind: user.active ? 1 : 0), \(bind: user.onDuty ? 1 : 0), \(bind: user.locale), \(bind: user.version))
            ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, store_id = excluded.store_id,
                active = excluded.active, on_duty = excluded.on_duty, locale = excluded.locale,
                version = excluded.version
            WHERE recipients.version < excluded.version
            """
        ).run()
    }

    /// The active users in `audience`, in id order.
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

    /// Stores each telling (with its type and data) in each of its recipients' inboxes, written
    /// in their language, numbered in order; returns what each recipient got.
    func insert(
        _ messages: [(Telling, String, [String: String], [Recipient])], at now: Date, in transaction: Transaction
    ) async throws -> [StoredNotification] {
        let count = messages.reduce(0) { $0 + $1.3.count }
        guard count > 0 else { return [] }
        // One numbering step for all, and inserts of many rows each.
        var seq = try await transaction.advanceSequence("notifications", by: count) - Int64(count)
        var rows: [(StoredNotification, document: String)] = []
        for (telling, type, data, recipients) in messages where !recipients.isEmpty {
            // Each language's message and document, written once per telling.
            var documents: [String: (NotificationMessage, String)] = [:]
            for recipient in recipients {
                if documents[recipient.locale] == nil {
                    let message = NotificationMessage(
                        telling, type: type, data: data, locale: recipient.locale, at: now)
                    documents[recipient.locale] = (message, try StoredDocument.text(message))
                }
                seq += 1
                let (message, document) = documents[recipient.locale]!
                rows.append(
                    (StoredNotification(userID: recipient.id, seq: seq, id: UUID.random(), message: message), document))
            }
        }
        // Inserts of at most 1,000 rows keep within both databases' limits on bound values.
        for start in stride(from: 0, to: rows.count, by: 1000) {
            var insert: SQLQueryString = "INSERT INTO notifications (seq, id, user_id, created_at, doc) VALUES "
            for (index, row) in rows[start..<min(start + 1000, rows.count)].enumerated() {
                let values: [any Encodable & Sendable] = [
                    row.0.seq, row.0.id.lowercasedText, row.0.userID.description,
                    now.millisecondsSince1970, row.document,
                ]
                insert = insert + (index == 0 ? "" : ", ") + "(\(binds: values))"
            }
            try await transaction.sql.raw(insert).run()
        }
        return rows.map(\.0)
    }

    /// Up to `limit` of `user`'s notifications after `after`, oldest first, and how many of
    /// theirs are unread, read together.
    func list(of user: UserID, after: Int64, limit: Int) async throws -> (
        notifications: [UserNotification], unread: Int64
    ) {
        let (rows, unread) = try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT seq, id, doc, read_at FROM notifications WHERE user_id = \(bind: user.description)
                AND seq > \(bind: after) ORDER BY seq LIMIT \(bind: limit)
                """
            ).all()
            return (rows, try await Self.unread(of: user, sql: sql))
        }
        let notifications = try rows.map { row in
            let message = try StoredDocument.decode(NotificationMessage.self, from: row)
            guard let id = UUID(text: try row.decode(column: "id", as: String.self)) else {
                throw StorageError.unexpected("a notification's id is not a UUID")
            }
            return UserNotification(
                seq: try row.decode(column: "seq", as: Int64.self), id: id, userID: user, type: message.type,
                title: message.title, body: message.body, titleKey: message.titleKey, bodyKey: message.bodyKey,
                args: message.args, data: message.data, createdAt: message.createdAt,
                readAt: try row.decode(column: "read_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)))
        }
        return (notifications, unread)
    }

    /// Marks `user`'s unread notifications up to `seq`, or those of `ids`, read at `now`;
    /// returns how many it marked and how many are unread after.
    func markRead(of user: UserID, upTo seq: Int64?, ids: [UUID]?, at now: Date) async throws -> NotificationReadState {
        try await database.transaction { transaction in
            var which: SQLQueryString = "user_id = \(bind: user.description) AND read_at IS NULL"
            if let seq { which = which + " AND seq <= \(bind: seq)" }
            if let ids {
                which = which + " AND id IN (\(binds: ids.map(\.lowercasedText)))"
            }
            let marked = try await transaction.sql.raw(
                "UPDATE notifications SET read_at = \(bind: now.millisecondsSince1970) WHERE " + which
                    + " RETURNING seq"
            ).all().count
            return NotificationReadState(
                marked: Int64(marked), unreadCount: try await Self.unread(of: user, sql: transaction.sql))
        }
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
}

/// A notification as stored in one user's inbox: what its push carries.
struct StoredNotification: Sendable {
    var userID: UserID
    var seq: Int64
    var id: UUID
    var message: NotificationMessage

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
}
