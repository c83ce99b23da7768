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
/// its copy of who is where and who is on duty; the order events become notifications, each
/// stored once per event however often it is delivered, then announced on `orderly:wake`.
///
/// - `order.created`: the store's users and, for a delivery, the couriers on duty.
/// - `order.claimed`: the store's users.
/// - `order.status_changed`: the store's users, the courier carrying the order and the customer
///   who placed it.
public struct NotificationsEvents: Sendable {
    let notifications: NotificationsRepository
    let wakes: WakePublisher

    /// The name the inbox records applied events under.
    static let consumer = "notifications"

    init(database: Database, redis: RedisClient, logger: Logger) {
        self.notifications = NotificationsRepository(database: database)
        self.wakes = WakePublisher(redis: redis, logger: logger)
    }

    /// What each consumed event type does.
    var handlers: [String: EventConsumer.Handler] {
        [
            IdentityEvents.userCreated: recordUser, IdentityEvents.userUpdated: recordUser,
            OrdersAPI.Events.created: orderCreated, OrdersAPI.Events.claimed: orderClaimed,
            OrdersAPI.Events.statusChanged: orderStatusChanged,
        ]
    }

    /// Applies one event as its consumer would; other types are ignored.
    public func apply(_ event: DomainEvent) async throws {
        try await handlers[event.type]?(event)
    }

    /// The consumers the process runs beside its Wire server: the gateway's identity events and
    /// the orders service's events, each in this service's consumer group, on the database's
    /// preferred executor (they mostly write it).
    func consumers(_ environment: ServiceEnvironment) -> [any Service] {
        [IdentityEvents.service, OrdersAPI.service].map { producer in
            EventConsumer(
                redis: environment.consumerRedis(),
                configuration: EventConsumerConfiguration(
                    stream: eventStream(of: producer), group: NotificationsService.name,
                    consumer: environment.instance, executor: environment.database.preferredExecutor),
                handlers: handlers, logger: environment.logger)
        }
    }

    func recordUser(_ event: DomainEvent) async throws {
        let user = try event.payload.decode(as: User.self)
        try await notifications.database.applyOnce(event, consumer: Self.consumer) { transaction in
            try await notifications.record(user, in: transaction)
        }
    }

    func orderCreated(_ event: DomainEvent) async throws {
        let order = try event.payload.decode(as: OrderFacts.self)
        var summary = order.fulfillment == .delivery ? "Delivery" : "Pickup"
        if let address = order.deliveryAddress { summary += " to \(address)" }
        if order.fulfillment == .delivery { summary += ", \(order.boxesCount) boxes" }
        try await notify(
            event, order: order, title: "New order #\(order.number)", body: summary,
            audience: Audience(store: order.storeID, couriersOnDuty: order.fulfillment == .delivery))
    }

    func orderClaimed(_ event: DomainEvent) async throws {
        let order = try event.payload.decode(as: OrderFactsChange.self).order
        try await notify(
            event, order: order, title: "Order #\(order.number) claimed", body: "A courier is on the way to pick it up",
            audience: Audience(store: order.storeID))
    }

    func orderStatusChanged(_ event: DomainEvent) async throws {
        let order = try event.payload.decode(as: OrderFactsChange.self).order
        let status = order.status.rawValue.replacingOccurrences(of: "_", with: " ")
        var body = "Now \(status)"
        if let reason = order.cancellationReason, order.status == .cancelled { body += ": \(reason)" }
        try await notify(
            event, order: order, title: "Order #\(order.number) \(status)", body: body,
            audience: Audience(store: order.storeID, customer: order.createdBy, courier: order.courierID))
    }

    /// Stores the notification for every active user in `audience`, once per event, then wakes
    /// their long-polls.
    private func notify(
        _ event: DomainEvent, order: OrderFacts, title: String, body: String, audience: Audience
    ) async throws {
        let message = NotificationMessage(
            type: event.type, title: title, body: body,
            data: ["order_id": order.id.description, "store_id": order.storeID.description],
            createdAt: Date.currentMillisecond)
        let notifications = self.notifications
        let wakeUps = try await notifications.database.transaction { transaction -> [WakeUp] in
            guard try await transaction.recordApplied(event: event.id, consumer: Self.consumer) else { return [] }
            let users = try await notifications.users(in: audience, in: transaction)
            return try await notifications.insert(message, for: users, in: transaction)
        }
        wakes.publish(wakeUps)
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
    var deliveryAddress: String?
    var boxesCount: Int
    var courierID: UserID?
    var createdBy: UserID
    var cancellationReason: String?

    enum CodingKeys: String, CodingKey {
        case id, number, fulfillment, status
        case storeID = "store_id"
        case deliveryAddress = "delivery_address"
        case boxesCount = "boxes_count"
        case courierID = "courier_id"
        case createdBy = "created_by"
        case cancellationReason = "cancellation_reason"
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
