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
            INSERT INTO recipients (user_id, role, store_id, active, on_duty, version)
            VALUES (\(bind: user.id.description), \(bind: user.role.rawValue), \(bind: user.storeID?.description),
                \(bind: user.active ? 1 : 0), \(bind: user.onDuty ? 1 : 0), \(bind: user.version))
            ON CONFLICT (user_id) DO UPDATE SET role = excluded.role, store_id = excluded.store_id,
                active = excluded.active, on_duty = excluded.on_duty, version = excluded.version
            WHERE recipients.version < excluded.version
            """
        ).run()
    }

    /// The active users in `audience`, in id order.
    func users(in audience: Audience, in transaction: Transaction) async throws -> [UserID] {
        var who: SQLQueryString = "1 = 0"
        if let store = audience.store { who = who + " OR store_id = \(bind: store.description)" }
        if let store = audience.storeManagers {
            who = who + " OR (store_id = \(bind: store.description) AND role IN ('owner', 'manager'))"
        }
        if audience.couriersOnDuty { who = who + " OR (role = 'courier' AND on_duty = 1)" }
        if let customer = audience.customer {
            who = who + " OR (user_id = \(bind: customer.description) AND role = 'customer')"
        }
        if let courier = audience.courier { who = who + " OR user_id = \(bind: courier.description)" }
        return try await transaction.sql.raw(
            "SELECT user_id FROM recipients WHERE active = 1 AND (" + who + ") ORDER BY user_id"
        ).all().compactMap { UserID(try $0.decode(column: "user_id", as: String.self)) }
    }

    /// Stores each message in each of its users' inboxes, numbered in order; returns the `seq`
    /// each got.
    func insert(_ messages: [(NotificationMessage, [UserID])], in transaction: Transaction) async throws -> [WakeUp] {
        let count = messages.reduce(0) { $0 + $1.1.count }
        guard count > 0 else { return [] }
        // One numbering step for all, and inserts of many rows each.
        var seq = try await transaction.advanceSequence("notifications", by: count) - Int64(count)
        var rows: [(WakeUp, document: String, createdAt: Date)] = []
        for (message, users) in messages where !users.isEmpty {
            let document = try StoredDocument.text(message)
            for user in users {
                seq += 1
                rows.append((WakeUp(userID: user, seq: seq), document, message.createdAt))
            }
        }
        // Inserts of at most 1,000 rows keep within both databases' limits on bound values.
        for start in stride(from: 0, to: rows.count, by: 1000) {
            var insert: SQLQueryString = "INSERT INTO notifications (seq, id, user_id, created_at, doc) VALUES "
            for (index, row) in rows[start..<min(start + 1000, rows.count)].enumerated() {
                let values: [any Encodable & Sendable] = [
                    row.0.seq, UUID.random().lowercasedText, row.0.userID.description,
                    row.createdAt.millisecondsSince1970, row.document,
                ]
                insert = insert + (index == 0 ? "" : ", ") + "(\(binds: values))"
            }
            try await transaction.sql.raw(insert).run()
        }
        return rows.map(\.0)
    }

    /// Up to `limit` of `user`'s notifications after `after`, oldest first.
    func list(of user: UserID, after: Int64, limit: Int) async throws -> [UserNotification] {
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT seq, id, doc FROM notifications WHERE user_id = \(bind: user.description)
                AND seq > \(bind: after) ORDER BY seq LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map { row in
            let message = try StoredDocument.decode(NotificationMessage.self, from: row)
            guard let id = UUID(text: try row.decode(column: "id", as: String.self)) else {
                throw StorageError.unexpected("a notification's id is not a UUID")
            }
            return UserNotification(
                seq: try row.decode(column: "seq", as: Int64.self), id: id, userID: user, type: message.type,
                title: message.title, body: message.body, data: message.data, createdAt: message.createdAt,
                readAt: message.readAt)
        }
    }
}

/// Who hears of an event: the users of `store`, the couriers on duty, the customer who placed
/// the order and the courier carrying it, as the event has it.
struct Audience: Sendable, Hashable {
    var store: StoreID?
    /// The owners and managers of this store.
    var storeManagers: StoreID?
    var couriersOnDuty = false
    var customer: UserID?
    var courier: UserID?
}

/// What all recipients of one event are told, stored once per recipient beside the row's own
/// `seq`, `id` and `user_id`.
struct NotificationMessage: Codable, Sendable {
    var type: String
    var title: String
    var body: String
    var data: [String: String]
    var createdAt: Date
    var readAt: Date?

    enum CodingKeys: String, CodingKey {
        case type, title, body, data
        case createdAt = "created_at"
        case readAt = "read_at"
    }
}
