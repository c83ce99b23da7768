import Contracts
import Domain
import Foundation
import JSON
import Logging
import Metrics
import Redis
import ServiceLifecycle

/// The gateway's events: what it publishes on `orderly:events:identity`, `user.created` and
/// `user.updated` with the user as payload, and what it consumes: the notifications service's
/// wake-ups on `orderly:wake`, which release the long-polls waiting for those users (`WakeHub`).
enum GatewayEvents {
    static func userCreated(_ user: User) throws -> DomainEvent { try event(IdentityEvents.userCreated, user) }

    static func userUpdated(_ user: User) throws -> DomainEvent { try event(IdentityEvents.userUpdated, user) }

    private static func event(_ type: String, _ user: User) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: user.storeID, aggregateID: user.id.description, occurredAt: user.updatedAt,
            payload: try EventPayload(encoding: user))
    }

    /// The consumers the process runs beside its HTTP server: wake-ups, and other replicas'
    /// word of ended sessions (`Sessions`).
    static func consumers(hub: WakeHub, sessions: Sessions, redis: RedisConfiguration, logger: Logger)
        -> [any Service]
    {
        [
            // Feeds the hub from `orderly:wake`; malformed messages are logged and skipped.
            ChannelListener(redis: redis, channel: WakeUp.channel) { message in
                guard let wakeUps = try? JSONDecoder().decode([WakeUp].self, from: Data(message.payload)) else {
                    return logger.warning(
                        "malformed wake-up skipped", metadata: ["redis.channel": "\(message.channel)"])
                }
                await hub.wake(wakeUps.map(\.userID))
            },
            ChannelListener(redis: redis, channel: Sessions.channel) { message in
                await sessions.heard(message, logger: logger)
            },
        ]
    }
}

/// Where long-polls wait for their user's next notification. A poll first takes a ticket, then
/// reads the inbox, then waits on the ticket: a wake-up that arrives between the read and the
/// wait is kept on the ticket, so it is never missed. The number of polls held is the gauge
/// `gateway_long_polls_waiting`.
public actor WakeHub {
    private struct Ticket {
        var user: UserID
        var woken = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private var tickets: [UInt64: Ticket] = [:]
    private var ticketsByUser: [UserID: Set<UInt64>] = [:]
    private var nextTicket: UInt64 = 0
    private let waiting = Gauge(label: "gateway_long_polls_waiting")

    public init() {}

    /// How many long-polls may wait for one user at once (a few devices signed in as them).
    static let maximumPerUser = 8

    /// Starts listening for `user`'s wake-ups; call `leave` when done. Nil when
    /// `maximumPerUser` polls wait for the user already.
    func enter(_ user: UserID) -> UInt64? {
        guard (ticketsByUser[user]?.count ?? 0) < Self.maximumPerUser else { return nil }
        nextTicket += 1
        tickets[nextTicket] = Ticket(user: user)
        ticketsByUser[user, default: []].insert(nextTicket)
        waiting.record(tickets.count)
        return nextTicket
    }

    func leave(_ ticket: UInt64) {
        guard let entry = tickets.removeValue(forKey: ticket) else { return }
        entry.waiter?.resume()
        ticketsByUser[entry.user]?.remove(ticket)
        if ticketsByUser[entry.user]?.isEmpty == true { ticketsByUser[entry.user] = nil }
        waiting.record(tickets.count)
    }

    /// Returns once `ticket`'s user was woken since the last wait, or after `timeout`.
    func wait(_ ticket: UInt64, timeout: Duration) async {
        guard let entry = tickets[ticket], !entry.woken else {
            tickets[ticket]?.woken = false
            return
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.release(ticket)
        }
        await withCheckedContinuation { continuation in tickets[ticket]?.waiter = continuation }
        timer.cancel()
        tickets[ticket]?.woken = false
    }

    /// Wakes every poll waiting for `user`.
    func wake(_ users: [UserID]) {
        for user in users {
            for ticket in ticketsByUser[user] ?? [] {
                tickets[ticket]?.woken = true
                release(ticket)
            }
        }
    }

    private func release(_ ticket: UInt64) {
        tickets[ticket]?.waiter?.resume()
        tickets[ticket]?.waiter = nil
    }
}

/// Hands each message of a Redis pub/sub channel to `handle`, until shutdown or cancellation.
struct ChannelListener: Service {
    let redis: RedisConfiguration
    let channel: String
    let handle: @Sendable (RedisMessage) async -> Void

    func run() async throws {
        let subscriber = RedisSubscriber(configuration: redis, channels: [channel])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await message in subscriber.messages { await handle(message) }
            } onGracefulShutdown: {
                subscriber.stop()
            }
        } onCancel: {
            subscriber.stop()
        }
    }
}
