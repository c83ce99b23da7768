import Contracts
import Domain
import Foundation
import Logging
public import Redis
import Runtime
import ServiceLifecycle
import Storage
import Synchronization

/// What the notifications service makes of the events it consumes: the identity events keep
/// its copy of who is where and who is on duty; the order events become notifications, stored
/// once per event however often it is delivered, then announced on `orderly:wake`.
///
/// - `order.created`: the store's users.
/// - `order.claimed`: the store's users.
/// - `order.status_changed`: the store's users, the courier carrying the order and the customer
///   who placed it; and when a delivery order enters the pool (accepted, unclaimed), the
///   couriers on duty (`order.available`).
/// - `order.released`: the store's users, and the couriers on duty (`order.available`).
/// - `stock.low` and `stock.out`: the store's owners and managers.
///
/// What couriers are told of an order they have not claimed leaves out the recipient's
/// apartment, as their view of the order does.
public struct NotificationsEvents: Sendable {
    let notifications: NotificationsRepository
    let wakes: WakePublisher

    /// The name the inbox records applied events under.
    static let consumer = "notifications"
    /// The type of the notification that tells couriers of an order they can claim.
    static let available = "order.available"

    init(database: Database, redis: RedisClient, logger: Logger) {
        self.notifications = NotificationsRepository(database: database)
        self.wakes = WakePublisher(redis: redis, logger: logger)
    }

    /// The event types consumed; the others are ignored.
    static let types = [
        IdentityEvents.userCreated, IdentityEvents.userUpdated, OrdersAPI.Events.created, OrdersAPI.Events.claimed,
        OrdersAPI.Events.statusChanged, OrdersAPI.Events.released, CatalogAPI.Events.stockLow,
        CatalogAPI.Events.stockOut,
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
    /// orders service's and the catalog's events, each in this service's consumer group, on the database's
    /// preferred executor (they mostly write it), a read's events applied together.
    func consumers(_ environment: ServiceEnvironment) -> [any Service] {
        [IdentityEvents.service, OrdersAPI.service, CatalogAPI.service].map { producer in
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
    /// first); then their long-polls are woken. Throws, applying none of them, when one cannot
    /// be decoded.
    public func apply(_ events: [DomainEvent]) async throws {
        let effects = try events.compactMap { event in try effect(of: event).map { (event, $0) } }
        guard !effects.isEmpty else { return }
        let now = Date.currentMillisecond
        let notifications = self.notifications
        let wakeUps = try await notifications.database.transaction { transaction -> [WakeUp] in
            var fresh = try await transaction.recordApplied(events: effects.map(\.0.id), consumer: Self.consumer)
            // The users of each audience met so far: the same store's events share them.
            var audiences: [Audience: [UserID]] = [:]
            var messages: [(NotificationMessage, [UserID])] = []
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
                        let message = NotificationMessage(
                            type: telling.type ?? event.type, title: telling.title, body: telling.body, data: data,
                            createdAt: now)
                        messages.append((message, audiences[audience, default: []].filter { told.insert($0).inserted }))
                    }
                }
            }
            return try await notifications.insert(messages, in: transaction)
        }
        wakes.publish(wakeUps)
    }

    /// What `event` does here; nil for the types not consumed.
    private func effect(of event: DomainEvent) throws -> Effect? {
        switch event.type {
        case IdentityEvents.userCreated, IdentityEvents.userUpdated:
            return .record(try event.payload.decode(as: User.self))
        case OrdersAPI.Events.created:
            let order = try event.payload.decode(as: OrderFacts.self)
            var summary = order.fulfillment == .delivery ? "Delivery" : "Pickup"
            if let address = order.address(withApartment: true) { summary += " to \(address)" }
            if order.fulfillment == .delivery { summary += ", \(order.boxesCount) boxes" }
            return .notify(
                order.data,
                [(Audience(store: order.storeID), Telling(title: "New order #\(order.number)", body: summary))])
        case OrdersAPI.Events.claimed:
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            return .notify(
                order.data,
                [
                    (
                        Audience(store: order.storeID),
                        Telling(
                            title: "Order #\(order.number) claimed", body: "A courier is on the way to pick it up")
                    )
                ])
        case OrdersAPI.Events.statusChanged:
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            let status = order.status.rawValue.replacingOccurrences(of: "_", with: " ")
            var body = "Now \(status)"
            if let reason = order.cancellationReason, order.status == .cancelled { body += ": \(reason)" }
            var tellings = [
                (
                    Audience(store: order.storeID, customer: order.createdBy, courier: order.courierID),
                    Telling(title: "Order #\(order.number) \(status)", body: body)
                )
            ]
            if order.status == .accepted, order.entersPool { tellings.append(Self.available(order)) }
            return .notify(order.data, tellings)
        case OrdersAPI.Events.released:
            let order = try event.payload.decode(as: OrderFactsChange.self).order
            var tellings = [
                (
                    Audience(store: order.storeID),
                    Telling(title: "Order #\(order.number) released", body: "It waits for another courier")
                )
            ]
            if order.entersPool { tellings.append(Self.available(order)) }
            return .notify(order.data, tellings)
        case CatalogAPI.Events.stockLow, CatalogAPI.Events.stockOut:
            let product = try event.payload.decode(as: ProductFacts.self)
            let telling =
                event.type == CatalogAPI.Events.stockOut
                ? Telling(title: "\(product.name) is out of stock", body: "Nothing left to sell")
                : Telling(title: "\(product.name) is running low", body: "\(product.available) left")
            return .notify(
                ["product_id": product.id.description, "store_id": product.storeID.description],
                [(Audience(storeManagers: product.storeID), telling)])
        default:
            return nil
        }
    }

    /// What the couriers on duty are told of an order they can claim now.
    private static func available(_ order: OrderFacts) -> (Audience, Telling) {
        var body = "\(order.boxesCount) boxes"
        if let address = order.address(withApartment: false) { body += " to \(address)" }
        return (
            Audience(couriersOnDuty: true),
            Telling(title: "Delivery #\(order.number) can be claimed", body: body, type: Self.available)
        )
    }
}

/// What one audience of an event is told; `type` is the event's unless given.
struct Telling: Sendable {
    var title: String
    var body: String
    var type: String?
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

    /// The ids a notification of the order opens.
    var data: [String: String] { ["order_id": id.description, "store_id": storeID.description] }

    /// Whether couriers can claim it now: an unclaimed delivery order in a claimable status.
    var entersPool: Bool {
        fulfillment == .delivery && courierID == nil && Order.claimableStatuses.contains(status)
    }
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
