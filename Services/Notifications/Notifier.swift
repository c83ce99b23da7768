import Contracts
import Domain
public import Events
import Foundation
import Logging
import Redis
import Runtime
import Storage
import Wire

/// What the notifications service makes of the events its followers read: the identity events
/// keep its copy of who is where, who is on duty and which language they read; the order, stock
/// and payment events become notifications, stored once per event however often it is
/// delivered, then announced on `orderly:wake` and pushed; and each store's events go to its
/// webhooks. Which event tells whom is each follower's (`effects`):
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
/// Those payment and stock events, and `card.linked`, `shift.clocked_in`, `shift.clocked_out`
/// and `product.created`, also add an entry to their store's activity feed (`Activity`), in
/// the same transaction, and wake the store's owners and managers.
///
/// Each text is written in the recipient's locale (`NotificationTexts`), its keys and arguments
/// kept beside it. What couriers are told of an order they have not claimed leaves out the
/// recipient's apartment, as their view of the order does.
public struct Notifier: Sendable {
    let notifications: NotificationsRepository
    let activity: ActivityRepository
    let webhooks: WebhooksRepository
    let wakes: WakePublisher
    /// Rung when webhook deliveries were stored.
    let doorbell: Doorbell
    /// Pushes what is stored to the users' devices, when pushes are configured.
    let pusher: PushSender?

    /// The name the inbox records applied events under.
    static let consumer = "notifications"

    init(database: Database, redis: RedisClient, doorbell: Doorbell, pusher: PushSender?, logger: Logger) {
        self.notifications = NotificationsRepository(database: database)
        self.activity = ActivityRepository(database: database)
        self.webhooks = WebhooksRepository(database: database)
        self.wakes = WakePublisher(redis: redis, logger: logger)
        self.doorbell = doorbell
        self.pusher = pusher
    }

    /// What an event does here.
    enum Effect {
        /// Keep this copy of a user.
        case record(User)
        /// Erase what is kept of a user who closed their account.
        case erase(UserID)
        /// Tell each audience its telling, with the ids to open as the notifications' data, and
        /// add `activity` to its store's feed.
        case notify([String: String], [(Audience, Telling)], activity: Activity? = nil)
        /// Add an entry to a store's activity feed.
        case log(Activity)
    }

    /// What each followed event type does: every follower's rules.
    static let effects = [
        RecipientsFollower.effects, OrderNoticesFollower.effects, StockNoticesFollower.effects,
        PaymentNoticesFollower.effects,
    ].reduce(into: [:]) { all, effects in all.merge(effects) { first, _ in first } }

    /// Applies one event as its follower would; other types are ignored.
    public func apply(_ event: DomainEvent) async throws {
        try await apply([event])
    }

    /// Applies `events`, in order, in one transaction, each once however often it is delivered
    /// (the inbox): users are recorded, and each order event's tellings are stored for every
    /// active user in their audience (a user in several audiences of one event hears only the
    /// first), or once for the couriers on duty, whom no other audience of an event names (an
    /// order they can claim has no courier); then their long-polls and streams are woken and their
    /// devices pushed to. Throws, applying none of them, when one cannot be decoded.
    public func apply(_ events: [DomainEvent]) async throws {
        let effects = try events.compactMap { event in try Self.effects[event.type].map { (event, try $0(event)) } }
        guard !effects.isEmpty else { return }
        let now = Date.currentMillisecond
        let (notifications, webhooks, pushing) = (self.notifications, self.webhooks, pusher != nil)
        let (stored, pushes, deliveries, watchers) = try await notifications.database.transaction {
            transaction -> (Stored, [StoredNotification], Int, [WakeUp]) in
            var fresh = try await transaction.recordApplied(events: effects.map(\.0.id), consumer: Self.consumer)
            let deliveries = try await Self.webhookDeliveries(
                of: effects.map(\.0).filter { fresh.contains($0.id) }, at: now, webhooks: webhooks, in: transaction)
            // The users of each audience met so far: the same store's events share them.
            var audiences: [Audience: [Recipient]] = [:]
            var messages: [Message] = []
            var activity: [Activity] = []
            var stored = Stored()
            // What the couriers on duty were told goes to the devices of those on duty then.
            var pushes: [StoredNotification] = []
            func store() async throws {
                let more = try await notifications.insert(messages, at: now, in: transaction)
                messages = []
                stored += more
                if pushing && !more.broadcasts.isEmpty {
                    let couriers = try await notifications.users(in: .couriersOnDuty, in: transaction)
                    pushes += more.broadcasts.flatMap { broadcast in couriers.map { broadcast.notification(to: $0) } }
                }
            }
            for (event, effect) in effects where fresh.remove(event.id) != nil {
                switch effect {
                case .record(let user):
                    // What came before is numbered before the user's spell on duty starts or ends.
                    try await store()
                    try await notifications.record(user, in: transaction)
                    audiences = [:]
                case .erase(let user):
                    try await store()
                    try await notifications.erase(user, in: transaction)
                    audiences = [:]
                case .log(let entry):
                    activity.append(entry)
                case .notify(let data, let tellings, let entry):
                    if let entry { activity.append(entry) }
                    var told: Set<UserID> = []
                    for (audience, telling) in tellings {
                        let type = telling.type ?? event.type
                        if audience == .couriersOnDuty {
                            messages.append(Message(telling: telling, type: type, data: data, to: .couriersOnDuty))
                            continue
                        }
                        if audiences[audience] == nil {
                            audiences[audience] = try await notifications.users(in: audience, in: transaction)
                        }
                        let recipients = audiences[audience, default: []].filter { told.insert($0.id).inserted }
                        messages.append(Message(telling: telling, type: type, data: data, to: .users(recipients)))
                    }
                }
            }
            try await store()
            // The stores' owners and managers, who may be watching their feed, are woken too.
            var watchers: [WakeUp] = []
            for (store, seq) in try await self.activity.insert(activity, in: transaction) {
                let managers = try await notifications.users(in: Audience(storeManagers: store), in: transaction)
                watchers += managers.map { WakeUp(userID: $0.id, seq: seq) }
            }
            return (stored, pushes, deliveries, watchers)
        }
        announce(stored, pushingBroadcasts: pushes, waking: watchers)
        if deliveries > 0 { doorbell.ring() }
    }

    /// Stores a delivery of each of `events` to every active endpoint of its store that hears of
    /// its type; returns how many.
    private static func webhookDeliveries(
        of events: [DomainEvent], at now: Date, webhooks: WebhooksRepository, in transaction: Transaction
    ) async throws -> Int {
        var seen = Set<UUID>()
        let told = events.filter {
            $0.storeID != nil && WebhooksAPI.eventTypes.contains($0.type) && seen.insert($0.id).inserted
        }
        let subscribers = try await webhooks.subscribers(of: Set(told.compactMap(\.storeID)), in: transaction)
        guard !subscribers.isEmpty else { return 0 }
        var count = 0
        for event in told {
            let endpoints = subscribers.filter { $0.store == event.storeID && $0.events.contains(event.type) }
            guard let store = event.storeID, !endpoints.isEmpty else { continue }
            let sent = WebhookEvent(
                id: event.id.lowercasedText, type: event.type, createdAt: event.occurredAt, storeID: store,
                data: try event.payload.decode(as: JSONValue.self))
            count += try await webhooks.enqueue(sent, to: endpoints.map(\.id), at: now, in: transaction).count
        }
        return count
    }

    /// Records `delivery` failed for good and, in the same transaction, turns off its endpoint,
    /// saying why, and tells its store's owners and managers (once: an endpoint already off is
    /// left as it is). Together, so that no reader sees the one without the other and no crash
    /// leaves an endpoint on whose delivery was given up.
    func giveUp(on delivery: WebhookDelivery, reason: String) async throws {
        let (notifications, webhooks) = (self.notifications, self.webhooks)
        let id = delivery.webhookID
        let now = Date.currentMillisecond
        let stored = try await webhooks.database.transaction { transaction -> Stored in
            try await webhooks.record(delivery, in: transaction)
            guard var webhook = try await webhooks.find(id, in: transaction.sql)?.webhook, webhook.active else {
                return Stored()
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
                [Message(telling: telling, type: "webhook.disabled", data: data, to: .users(managers))], at: now,
                in: transaction)
        }
        announce(stored, pushingBroadcasts: [])
    }

    /// Wakes the streams and long-polls of the users `stored` went to (every courier's, for a
    /// broadcast) and of `watchers`, and hands its notifications to the pusher with `broadcasts`, what the
    /// couriers on duty were told as each of them is pushed it; neither waits on anything.
    private func announce(
        _ stored: Stored, pushingBroadcasts broadcasts: [StoredNotification], waking watchers: [WakeUp] = []
    ) {
        wakes.publish(stored.notifications.map(\.wakeUp) + stored.broadcasts.map(\.wakeUp) + watchers)
        pusher?.push((stored.notifications + broadcasts).sorted { $0.seq < $1.seq })
    }
}
