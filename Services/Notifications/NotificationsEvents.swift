import Contracts
import Domain
public import Events
import Foundation
import Logging
import Redis
import Runtime
import ServiceLifecycle
import Storage
import Synchronization
import Wire

/// What the notifications service makes of the events it consumes: the identity events keep
/// its copy of who is where, who is on duty and which language they read; the order, stock and
/// payment events become notifications, stored once per event however often it is delivered,
/// then announced on `orderly:wake`.
///
/// - `order.created`: the store's users; for a delivery order, the couriers on duty too.
/// - `order.claimed`: the store's users.
/// - `order.status_changed`: the store's users, the courier carrying the order and the customer
///   who placed it; and when a delivery order is accepted or ready and unclaimed, the couriers on
///   duty (`order.available`: it can be claimed).
/// - `order.released`: the store's users, and the couriers on duty (`order.available`).
/// - `stock.low` and `stock.out`: the store's owners and managers.
/// - `payment.completed` and `payment.refunded`: the staff member who took the payment and its
///   customer.
///
/// Each text is written in the recipient's locale (`NotificationTexts`), its keys and arguments
/// kept beside it. What couriers are told of an order they have not claimed leaves out the
/// recipient's apartment, as their view of the order does.
public struct NotificationsEvents: Sendable {
    let notifications: NotificationsRepository
    let webhooks: WebhookRepository
    let wakes: WakePublisher
    /// Rung when webhook deliveries were stored.
    let doorbell: Doorbell
    /// Pushes what is stored to the users' devices, when pushes are configured.
    let pusher: PushSender?

    /// The name the inbox records applied events under.
    static let consumer = "notifications"
    /// The type of the notification that tells couriers of an order they can claim.
    static let available = "order.available"

    init(database: Database, redis: RedisClient, doorbell: Doorbell, pusher: PushSender?, logger: Logger) {
        self.notifications = NotificationsRepository(database: database)
        self.webhooks = WebhookRepository(database: database)
        self.wakes = WakePublisher(redis: redis, logger: logger)
        self.doorbell = doorbell
        self.pusher = pusher
    }

    /// The event types consumed; the others are ignored.
    static let types = [
        IdentityEvents.userCreated, IdentityEvents.userUpdated, OrdersAPI.Events.created, OrdersAPI.Events.claimed,
        OrdersAPI.Events.statusChanged, OrdersAPI.Events.released, CatalogAPI.Events.stockLow,
        CatalogAPI.Events.stockOut, PaymentsAPI.Events.completed, PaymentsAPI.Events.refunded,
    ]

    /// Each consumed type's handler: the event alone, as a batch of one.
    var handlers: [String: EventConsumer.Handler] {
        let handler: EventConsumer.Handler = { event in try await apply([event]) }
        return Dictionary(uniqueKeysWithValues: Self.types.map { ($0, handler) })
    }

    /// Applies one event as its consumer would; other types are ignored.
    public func apply(_ event: DomainEvent) async throws {
        try await apply([event])
    }

    /// The consumers the process runs beside its Wire server: the gateway's identity events, the
    /// orders service's, the catalog's and the payments service's events, each in this service's
    /// consumer group, on the database's preferred executor (they mostly write it), a read's
    /// events applied together.
    func consumers(_ environment: ServiceEnvironment) -> [any Service] {
        [IdentityEvents.service, OrdersAPI.service, CatalogAPI.service, PaymentsAPI.service].map { producer in
            EventConsumer(
                redis: environment.consumerRedis(),
                configuration: EventConsumerConfiguration(
                    stream: eventStream(of: producer), group: NotificationsService.name,
                    consumer: environment.instance, executor: environment.database.preferredExecutor),
                handlers: handlers, batchHandler: { events in try await apply(events) }, logger: environment.logger)
        }
    }

    /// What an event does here.
    private enum Effect {
        /// Keep this copy of a user.
        case record(User)
        /// Tell each audience its telling, with the ids to open as the notifications' data.
        case notify([String: String], [(Audience, Telling)])
    }

    /// Applies `events`, in order, in one transaction, each once however often it is delivered
    /// (the inbox): users are recorded, and each order event's tellings are stored for every
    /// active user in their audience (a user in several audiences of one event hears only the
    /// first); then their long-polls and streams are woken and their devices pushed to. Throws, applying none of them, when one cannot
    /// be decoded.
    public func apply(_ events: [DomainEvent]) async throws {
        let effects = try events.compactMap { event in try effect(of: event).map { (event, $0) } }
        guard !effects.isEmpty else { return }
        let now = Date.currentMillisecond
        let (notifications, webhooks) = (self.notifications, self.webhooks)
        let (stored, deliveries) = try await notifications.database.transaction {
            transaction -> ([StoredNotification], Int) in
            var fresh = try await transaction.recordApplied(events: effects.map(\.0.id), consumer: Self.consumer)
            let deliveries = try await Self.webhookDeliveries(
                of: effects.map(\.0).filter { fresh.contains($0.id) }, at: now, webhooks: webhooks, in: transaction)
            // The users of each audience met so far: the same store's events share them.
            var audiences: [Audience: [Recipient]] = [:]
            var messages: [(Telling, String, [String: String], [Recipient])] = []
            for (event, effect) in effects where fresh.remove(event.id) != nil {
                switch effect {
                case .record(let user):
                    try await notifications.record(user, in: transaction)
                    audiences = [:]
                case .notify(let data, let tellings):
                    var told: Set<UserID> = []
                    for (audience, telling) in tellings {
                        if audiences[audience] == nil {
                            audiences[audience] = try await notifications.users(in: audience, in: transaction)
                        }
                        let recipients = audiences[audience, default: []].filter { told.insert($0.id).inserted }
                        messages.append((telling, telling.type ?? event.type, data, recipients))
                    }
                }
            }
            return (try await notifications.insert(messages, at: now, in: transaction), deliveries)
        }
        announce(stored)
        if deliveries > 0 { doorbell.ring() }
    }

    /// Stores a delivery of each of `events` to every active endpoint of its store that hears of
    /// its type; returns how many.
    private static func webhookDeliveries(
        of events: [DomainEvent], at now: Date, webhooks: WebhookRepository, in transaction: Transaction
    ) async throws -> Int {
        var seen = Set<UUID>()
        let told = events.filter {
            $0.storeID != nil && WebhooksAPI.eventTypes.contains($0.type) && seen.insert($0.id).inserted
        }
        let subscribers = try await webhooks.subscribers(of: Set(told.compactMap(\.storeID)), in: transaction)
        guard !subscribers.isEmpty else { return 0 }
        var deliveries: [(WebhookDelivery, body: String)] = []
        for event in told {
            let endpoints = subscribers.filter { $0.store == event.storeID && $0.events.contains(event.type) }
            guard let store = event.storeID, !endpoints.isEmpty else { continue }
            let body = WebhookEvent(
                id: event.id.lowercasedText, type: event.type, createdAt: event.occurredAt, storeID: store,
                data: try event.payload.decode(as: JSONValue.self))
            let text = String(decoding: try WireJSON.encoder.encode(body), as: UTF8.self)
            for endpoint in endpoints {
                deliveries.append(
                    (
                        WebhookDelivery(
                            id: WebhookDeliveryID(), webhookID: endpoint.id, eventID: body.id, eventType: event.type,
                            status: .pending, attempts: 0, lastStatusCode: nil, lastError: nil, lastAttemptAt: nil,
                            nextAttemptAt: now, deliveredAt: nil, createdAt: now), text
                    ))
            }
        }
        try await webhooks.enqueue(deliveries, in: transaction)
        return deliveries.count
    }

    /// Turns off endpoint `id`, whose deliveries kept failing, saying why, and tells its store's
    /// owners and managers (once: an endpoint already off is left as it is).
    func disableWebhook(_ id: WebhookID, reason: String) async throws {
        let (notifications, webhooks) = (self.notifications, self.webhooks)
        let now = Date.currentMillisecond
        let stored = try await webhooks.database.transaction { transaction -> [StoredNotification] in
            guard var webhook = try await webhooks.find(id, in: transaction.sql)?.webhook, webhook.active else {
                return []
            }
            webhook.active = false
            webhook.disabledReason = reason
            webhook.version += 1
            webhook.updatedAt = now
            try await webhooks.save(webhook, in: transaction)
            let managers = try await notifications.users(in: Audience(storeManagers: webhook.storeID), in: transaction)
            let telling = Telling("webhook.disabled.title", "webhook.disabled.body", [webhook.url])
            let data = ["webhook_id": id.description, "store_id": webhook.storeID.description]
            return try await notifications.insert(
                [(telling, "webhook.disabled", data, managers)], at: now, in: transaction)
        }
        announce(stored)
    }

    /// Wakes the streams and long-polls of the users `stored` went to, and hands it to the
    /// pusher; neither waits on anything.
    private func announce(_ stored: [StoredNotification]) {
        wakes.publish(stored.map(\.wakeUp))
        pusher?.push(stored)
    }

    /// What `event` does here; nil for the types not consumed.
    private func effect(of event: DomainEvent) throws -> Effect? {
        switch event.type {
        case IdentityEvents.userCreated, IdentityEvents.userUpdated:
            return .record(try event.payload.decode(as: User.self))
        case OrdersAPI.Events.created:
            let order = try event.payload.decode(as: OrderFacts.self)
            var tellings = [
                (
                    Audience(store: order.storeID),
                    order.fulfillment == .delivery
                        ? Telling("order.created.title", "order.created.delivery", order.arguments(withApartment: true))
                        : Telling("order.created.title", "order.created.pickup", order.arguments(withApartment: true))
                )
            ]
            if order.fulfillment == .delivery {
                tellings.append(
                    (
                        Audience(couriersOnDuty: true),
                        Telling(
                            "order.new_delivery.title", "order.new_delivery.body", order.arguments(withApartment: false)
                        )
                    ))
            }
            return .notify(order.data, tellings)
        case OrdersAPI.Events.claimed:
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            return .notify(
                order.data,
                [(Audience(store: order.storeID), Telling("order.claimed.title", "order.claimed.body", [order.label]))])
        case OrdersAPI.Events.statusChanged:
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            let status = order.status.rawValue
            let cancelled = order.status == .cancelled && order.cancellationReason != nil
            var tellings = [
                (
                    Audience(store: order.storeID, customer: order.createdBy, person: order.courierID),
                    Telling(
                        "order.status.\(status)", cancelled ? "order.status.cancelled.body" : "order.status.body",
                        [order.label, order.cancellationReason ?? ""])
                )
            ]
            if [.accepted, .ready].contains(order.status), order.isInPool { tellings.append(Self.available(order)) }
            return .notify(order.data, tellings)
        case OrdersAPI.Events.released:
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            var tellings = [
                (Audience(store: order.storeID), Telling("order.released.title", "order.released.body", [order.label]))
            ]
            if order.isInPool { tellings.append(Self.available(order)) }
            return .notify(order.data, tellings)
        case CatalogAPI.Events.stockLow, CatalogAPI.Events.stockOut:
            let product = try event.payload.decode(as: ProductFacts.self)
            let kind = event.type == CatalogAPI.Events.stockOut ? "stock.out" : "stock.low"
            return .notify(
                ["product_id": product.id.description, "store_id": product.storeID.description],
                [
                    (
                        Audience(storeManagers: product.storeID),
                        Telling("\(kind).title", "\(kind).body", [product.name, "\(product.available)"])
                    )
                ])
        case PaymentsAPI.Events.completed:
            let payment = try event.payload.decode(as: PaymentFacts.self)
            return .notify(
                payment.data,
                [
                    (
                        Audience(customer: payment.customerID, person: payment.staffID),
                        Telling(
                            "payment.completed.title", "payment.completed.\(payment.method.rawValue)",
                            [payment.total.description])
                    )
                ])
        case PaymentsAPI.Events.refunded:
            let refunded = try event.payload.decode(as: PaymentRefundFacts.self)
            let refund = Money(minorUnits: refunded.refund.amount, currency: refunded.payment.currency)
            var data = refunded.payment.data
            data["refund_id"] = refunded.refund.id
            return .notify(
                data,
                [
                    (
                        Audience(customer: refunded.payment.customerID, person: refunded.payment.staffID),
                        Telling(
                            "payment.refunded.title", "payment.refunded.body",
                            [refund.description, refunded.refund.reason])
                    )
                ])
        default:
            return nil
        }
    }

    /// What the couriers on duty are told of an order they can claim now.
    private static func available(_ order: OrderFacts) -> (Audience, Telling) {
        (
            Audience(couriersOnDuty: true),
            Telling(
                "order.available.title", "order.available.body", order.arguments(withApartment: false),
                type: Self.available)
        )
    }
}

/// What one audience of an event is told: the keys of its title and body in
/// `NotificationTexts` and their arguments; `type` is the event's unless given.
struct Telling: Sendable {
    var titleKey: String
    var bodyKey: String
    var args: [String]
    var type: String?

    init(_ titleKey: String, _ bodyKey: String, _ args: [String], type: String? = nil) {
        self.titleKey = titleKey
        self.bodyKey = bodyKey
        self.args = args
        self.type = type
    }
}

/// What the notifications take from an order in an event's payload; the order's other fields
/// are not decoded.
struct OrderFacts: Decodable, Sendable, Hashable {
    var id: OrderID
    var number: Int64
    var storeID: StoreID
    var fulfillment: Fulfillment
    var status: OrderStatus
    var street: String?
    var buildingNo: String?
    var floor: String?
    var apartment: String?
    var city: String?
    var boxesCount: Int
    var courierID: UserID?
    var createdBy: UserID
    var cancellationReason: String?

    enum CodingKeys: String, CodingKey {
        case id, number, fulfillment, status, street, floor, apartment, city
        case storeID = "store_id"
        case buildingNo = "building_no"
        case boxesCount = "boxes_count"
        case courierID = "courier_id"
        case createdBy = "created_by"
        case cancellationReason = "cancellation_reason"
    }

    /// The recipient's address on one line, with or without the apartment.
    func address(withApartment: Bool) -> String? {
        Order.addressLine(
            fulfillment: fulfillment, street: street, buildingNo: buildingNo, floor: floor,
            apartment: withApartment ? apartment : nil, city: city)
    }

    /// The order's number as text, the first argument of its texts.
    var label: String { "\(number)" }

    /// The arguments of the texts of a new or claimable order: its number, the address (with or
    /// without the apartment; empty for pickup), and the boxes.
    func arguments(withApartment: Bool) -> [String] {
        [label, address(withApartment: withApartment) ?? "", "\(boxesCount)"]
    }

    /// The ids a notification of the order opens.
    var data: [String: String] { ["order_id": id.description, "store_id": storeID.description] }

    /// Whether couriers can claim it now (`OrderPool`).
    var isInPool: Bool { OrderPool.contains(fulfillment: fulfillment, courierID: courierID, status: status) }
}

/// What the notifications take from a product in a stock event's payload.
struct ProductFacts: Decodable, Sendable {
    var id: ProductID
    var storeID: StoreID
    var name: String
    var available: Int64

    enum CodingKeys: String, CodingKey {
        case id, name, available
        case storeID = "store_id"
    }
}

/// What the notifications take from a payment in an event's payload.
struct PaymentFacts: Decodable, Sendable {
    var id: PaymentID
    var storeID: StoreID
    var orderID: OrderID?
    var customerID: UserID?
    var staffID: UserID
    var amount: Int64
    var currency: CurrencyCode
    var method: PaymentMethod

    enum CodingKeys: String, CodingKey {
        case id, amount, currency, method
        case storeID = "store_id"
        case orderID = "order_id"
        case customerID = "customer_id"
        case staffID = "staff_id"
    }

    /// The amount with its currency: `35.00 ILS`.
    var total: Money { Money(minorUnits: amount, currency: currency) }

    /// The ids a notification of the payment opens.
    var data: [String: String] {
        var data = ["payment_id": id.description, "store_id": storeID.description]
        data["order_id"] = orderID?.description
        return data
    }
}

/// What the notifications take from a `payment.refunded` payload.
struct PaymentRefundFacts: Decodable, Sendable {
    struct RefundFacts: Decodable, Sendable {
        var id: String
        var amount: Int64
        var reason: String
    }

    var payment: PaymentFacts
    var refund: RefundFacts
}

/// The order of an `OrderChange` payload.
struct OrderFactsChange: Decodable, Sendable {
    var order: OrderFacts
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
                let message = try JSONEncoder().encode(batch)
                try await redis.send(["PUBLISH", RedisArgument(WakeUp.channel), RedisArgument(Array(message))])
            } catch {
                logger.warning("wake-ups not published", metadata: ["error": "\(error)", "wake_ups": "\(batch.count)"])
            }
        }
    }
}
