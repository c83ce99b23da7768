internal import Contracts
internal import Domain
internal import Foundation
public import Logging
internal import Redis
public import Runtime
internal import SQLKit
public import ServiceLifecycle
internal import Storage
internal import Synchronization
internal import Wire

/// The notifications service: turns domain events into notifications in each user's inbox,
/// and announces each one on `orderly:wake` so a waiting long-poll answers at once.
public enum NotificationsService {
    public static let name = NotificationsAPI.service
    public static let wirePort = 7204
    public static let adminPort = 9204

    /// The process's parts, ready for `ServiceRunner`.
    public static func services(settings: ServiceSettings, logger: Logger) async throws -> [any Service] {
        let host = try await ServiceHost.start(
            settings: settings, logger: logger, migrations: NotificationsSchema.migrations)
        let inbox = Inbox(
            database: host.database, wakes: WakePublisher(redis: host.redis, logger: logger), logger: logger)
        var router = WireRouter()
        router.register(NotificationsAPI.list) { request, context in
            try await inbox.list(request, for: context.requirePrincipal())
        }
        let identity = EventConsumer(
            redis: host.consumerRedis(),
            configuration: EventConsumerConfiguration(
                stream: eventStream(of: IdentityEvents.service), group: name, consumer: settings.instance,
                executor: host.database.preferredExecutor),
            handlers: [
                IdentityEvents.userCreated: inbox.recordUser, IdentityEvents.userUpdated: inbox.recordUser,
            ],
            logger: logger)
        let orders = EventConsumer(
            redis: host.consumerRedis(),
            configuration: EventConsumerConfiguration(
                stream: eventStream(of: OrdersAPI.service), group: name, consumer: settings.instance,
                executor: host.database.preferredExecutor),
            handlers: [
                "order.created": inbox.orderCreated, "order.claimed": inbox.orderClaimed,
                "order.status_changed": inbox.orderStatusChanged,
            ],
            logger: logger)
        return host.services(router: router, parts: [identity, orders])
    }
}

/// Users' inboxes: what each event means for whom, stored once per event however often it is
/// delivered.
struct Inbox: Sendable {
    let database: Database
    let wakes: WakePublisher
    let logger: Logger

    static let consumer = "notifications"

    /// Keeps the copy of a user that decides who hears about what; an older version than the
    /// one kept is ignored, so events applied out of order do no harm.
    func recordUser(_ event: DomainEvent) async throws {
        let user = try event.payload.decode(as: User.self)
        try await database.applyOnce(event, consumer: Self.consumer) { transaction in
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
    }

    /// A new order: its store's users hear of it, and so do the couriers on duty when it is
    /// a delivery.
    func orderCreated(_ event: DomainEvent) async throws {
        let order = try OrderFacts.read(event.payload, nested: false)
        var summary = order.fulfillment == .delivery ? "Delivery" : "Pickup"
        if let address = order.deliveryAddress { summary += " to \(address)" }
        if order.fulfillment == .delivery { summary += ", \(order.boxesCount) boxes" }
        var who: SQLQueryString = "store_id = \(bind: order.storeID.description)"
        if order.fulfillment == .delivery { who = who + " OR (role = 'courier' AND on_duty = 1)" }
        try await notify(event, order: order, title: "New order #\(order.number)", body: summary, recipients: who)
    }

    /// A courier took a delivery: the store hears of it.
    func orderClaimed(_ event: DomainEvent) async throws {
        let order = try OrderFacts.read(event.payload, nested: true)
        try await notify(
            event, order: order, title: "Order #\(order.number) claimed", body: "A courier is on the way to pick it up",
            recipients: "store_id = \(bind: order.storeID.description)")
    }

    /// A status change: the store, the courier carrying the order and the customer who placed it.
    func orderStatusChanged(_ event: DomainEvent) async throws {
        let order = try OrderFacts.read(event.payload, nested: true)
        let status = order.status.rawValue.replacingOccurrences(of: "_", with: " ")
        var who: SQLQueryString =
            "store_id = \(bind: order.storeID.description) OR (user_id = \(bind: order.createdBy.description) AND role = 'customer')"
        if let courier = order.courierID { who = who + " OR user_id = \(bind: courier.description)" }
        var body = "Now \(status)"
        if let reason = order.cancellationReason, order.status == .cancelled { body += ": \(reason)" }
        try await notify(event, order: order, title: "Order #\(order.number) \(status)", body: body, recipients: who)
    }

    /// Writes a notification for each active user matching `recipients` (a condition on the
    /// `recipients` table), once per event, then wakes their long-polls.
    private func notify(
        _ event: DomainEvent, order: OrderFacts, title: String, body: String, recipients: SQLQueryString
    ) async throws {
        let message = try NotificationMessage(
            type: event.type, title: title, body: body,
            data: ["order_id": order.id.description, "store_id": order.storeID.description],
            createdAt: Date.currentMillisecond
        ).json()
        let wakeUps = try await database.transaction { transaction -> [WakeUp] in
            guard try await transaction.recordApplied(event: event.id, consumer: Self.consumer) else { return [] }
            let users = try await transaction.sql.raw(
                "SELECT user_id FROM recipients WHERE active = 1 AND (" + recipients + ") ORDER BY user_id"
            ).all().compactMap { UserID(try $0.decode(column: "user_id", as: String.self)) }
            guard !users.isEmpty else { return [] }
            // One numbering step and one insert for all recipients, who share the message.
            let first = try await transaction.advanceSequence("notifications", by: users.count) - Int64(users.count) + 1
            let now = Date.currentMillisecond.millisecondsSince1970
            let wakeUps = users.enumerated().map { WakeUp(userID: $1, seq: first + Int64($0)) }
            // Inserts of at most 1,000 rows keep within both databases' limits on bound values.
            for start in stride(from: 0, to: wakeUps.count, by: 1000) {
                var insert: SQLQueryString = "INSERT INTO notifications (seq, id, user_id, created_at, doc) VALUES "
                for (index, wakeUp) in wakeUps[start..<min(start + 1000, wakeUps.count)].enumerated() {
                    let values: [any Encodable & Sendable] = [
                        wakeUp.seq, UUID.random().lowercasedText, wakeUp.userID.description, now, message,
                    ]
                    insert = insert + (index == 0 ? "" : ", ") + "(\(binds: values))"
                }
                try await transaction.sql.raw(insert).run()
            }
            return wakeUps
        }
        wakes.publish(wakeUps)
    }

    /// The caller's notifications after the cursor, oldest first.
    func list(_ request: NotificationListRequest, for principal: Principal) async throws -> Page<UserNotification> {
        let limit = try KeysetCursor.limit(request.limit)
        guard request.after >= 0 else { throw OrderlyError.invalidFields(["after": "must be 0 or more"]) }
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT seq, id, doc FROM notifications WHERE user_id = \(bind: principal.userID.description)
                AND seq > \(bind: request.after) ORDER BY seq LIMIT \(bind: limit + 1)
                """
            ).all()
        }
        let notifications = try rows.prefix(limit).map { row in
            let message = try StoredDocument.decode(NotificationMessage.self, from: row)
            guard let id = UUID(text: try row.decode(column: "id", as: String.self)) else {
                throw StorageError.unexpected("a notification's id is not a UUID")
            }
            return UserNotification(
                seq: try row.decode(column: "seq", as: Int64.self), id: id, userID: principal.userID,
                type: message.type, title: message.title, body: message.body, data: message.data,
                createdAt: message.createdAt, readAt: message.readAt)
        }
        return Page(data: notifications, nextCursor: rows.count > limit ? notifications.last.map { "\($0.seq)" } : nil)
    }
}

/// Tells every gateway which users have something new, on `orderly:wake`.
///
/// One message carries whatever gathered while the previous one was being sent: alone, a
/// wake-up goes out at once; under load, the events of a moment share a message (at most 1,000
/// wake-ups each) instead of each paying for its own. Best effort: a lost wake-up only delays
/// an answer until the long-poll's next re-check.
final class WakePublisher: Sendable {
    private let redis: RedisClient
    private let logger: Logger
    private let maximumPerMessage = 1000

    private struct Queue {
        var pending: [WakeUp] = []
        var sending = false
    }
    private let queue = Mutex(Queue())

    init(redis: RedisClient, logger: Logger) {
        self.redis = redis
        self.logger = logger
    }

    func publish(_ wakeUps: [WakeUp]) {
        guard !wakeUps.isEmpty else { return }
        let start = queue.withLock { queue in
            queue.pending += wakeUps
            defer { queue.sending = true }
            return !queue.sending
        }
        if start { Task { await send() } }
    }

    /// Sends messages until nothing is pending.
    private func send() async {
        while true {
            let batch = queue.withLock { queue in
                let batch = Array(queue.pending.prefix(maximumPerMessage))
                queue.pending.removeFirst(batch.count)
                if batch.isEmpty { queue.sending = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await redis.send(["PUBLISH", RedisArgument(WakeUp.channel), RedisArgument(WakeUp.message(batch))])
            } catch {
                logger.warning("wake-ups not published", metadata: ["error": "\(error)", "wake_ups": "\(batch.count)"])
            }
        }
    }
}

/// What all recipients of one event are told, stored once per recipient beside the row's own
/// `seq`, `id` and `user_id`. (Rows written before it also carried those three in the document;
/// reading ignores them.)
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

    /// The JSON stored, what `JSONEncoder` would write, through `JSONValue`'s faster writer.
    func json() throws -> String {
        var fields: [String: JSONValue] = [
            CodingKeys.type.rawValue: .string(type), CodingKeys.title.rawValue: .string(title),
            CodingKeys.body.rawValue: .string(body), CodingKeys.data.rawValue: .object(data.mapValues { .string($0) }),
            CodingKeys.createdAt.rawValue: .string(RFC3339.format(createdAt)),
        ]
        if let readAt { fields[CodingKeys.readAt.rawValue] = .string(RFC3339.format(readAt)) }
        return try JSONValue.object(fields).jsonText()
    }
}

/// What the notifications take from an order event's payload, read straight from its JSON:
/// the order's lines, addresses and the rest are skipped over, not decoded.
struct OrderFacts: Sendable {
    var id: OrderID
    var number: Int64
    var storeID: StoreID
    var fulfillment: Fulfillment
    var status: OrderStatus
    var deliveryAddress: String?
    var boxesCount: Int
    var courierID: UserID?
    var createdBy: UserID
    var cancellationReason: String?

    /// The order of an `order.created` payload (the order itself) or of a later event's
    /// (`{"order": …, "change": …}`).
    static func read(_ payload: EventPayload, nested: Bool) throws -> OrderFacts {
        var json = payload.json
        return try json.withUTF8 { bytes in
            var scanner = JSONScanner(UnsafeRawBufferPointer(bytes))
            var facts: OrderFacts?
            if nested {
                try scanner.readObject { scanner, key in
                    if key == "order" { facts = try OrderFacts(&scanner) } else { _ = try scanner.skipValue() }
                }
            } else {
                facts = try OrderFacts(&scanner)
            }
            try scanner.expectEnd()
            guard let facts else { throw MalformedPayload(field: "order") }
            return facts
        }
    }

    private init(_ scanner: inout JSONScanner) throws {
        var id: OrderID?
        var number: Int64?
        var storeID: StoreID?
        var fulfillment: Fulfillment?
        var status: OrderStatus?
        var boxesCount: Int?
        var createdBy: UserID?
        var deliveryAddress: String?
        var courierID: UserID?
        var cancellationReason: String?
        func value<T>(_ field: String, _ scanner: inout JSONScanner, _ make: (String) -> T?) throws -> T {
            guard let value = make(try scanner.readString()) else { throw MalformedPayload(field: field) }
            return value
        }
        try scanner.readObject { scanner, key in
            switch key {
            case "id": id = try value(key, &scanner, OrderID.init)
            case "number": number = try scanner.readInteger()
            case "store_id": storeID = try value(key, &scanner, StoreID.init)
            case "fulfillment": fulfillment = try value(key, &scanner, Fulfillment.init(rawValue:))
            case "status": status = try value(key, &scanner, OrderStatus.init(rawValue:))
            case "delivery_address": deliveryAddress = scanner.consumeNull() ? nil : try scanner.readString()
            case "boxes_count": boxesCount = Int(try scanner.readInteger())
            case "courier_id": courierID = scanner.consumeNull() ? nil : try value(key, &scanner, UserID.init)
            case "created_by": createdBy = try value(key, &scanner, UserID.init)
            case "cancellation_reason": cancellationReason = scanner.consumeNull() ? nil : try scanner.readString()
            default: _ = try scanner.skipValue()
            }
        }
        guard let id else { throw MalformedPayload(field: "id") }
        guard let number else { throw MalformedPayload(field: "number") }
        guard let storeID else { throw MalformedPayload(field: "store_id") }
        guard let fulfillment else { throw MalformedPayload(field: "fulfillment") }
        guard let status else { throw MalformedPayload(field: "status") }
        guard let boxesCount else { throw MalformedPayload(field: "boxes_count") }
        guard let createdBy else { throw MalformedPayload(field: "created_by") }
        self.id = id
        self.number = number
        self.storeID = storeID
        self.fulfillment = fulfillment
        self.status = status
        self.boxesCount = boxesCount
        self.createdBy = createdBy
        self.deliveryAddress = deliveryAddress
        self.courierID = courierID
        self.cancellationReason = cancellationReason
    }
}

/// An order event whose payload lacks a field the notifications need, or has it malformed.
struct MalformedPayload: Error, Equatable, CustomStringConvertible {
    var field: String
    var description: String { "the order in the event payload has no valid \(field)" }
}
