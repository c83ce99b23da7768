import Domain
import Metrics
public import ServiceLifecycle

/// Where long-polls and event streams wait for their user's next notification, or a courier's
/// for what the couriers on duty are told (every courier's wait is woken: whether they are on
/// duty is the notifications service's to answer when they read). One first
/// takes a ticket, then reads the inbox, then waits on the ticket: a wake-up that arrives
/// between the read and the wait is kept on the ticket, so it is never missed. The number of
/// each kind held is the gauge `gateway_long_polls_waiting` or `gateway_streams_open`.
///
/// Run as a service after the HTTP server, it closes at shutdown before the server stops: every
/// wait returns, and `isClosed` tells the streams to end so the server is not held by them.
public actor WakeHub: Service {
    /// What waits: a long-poll, or a server-sent event stream.
    enum Kind: CaseIterable {
        case longPoll, stream

        /// How many of the kind may wait for one user at once (a few devices signed in as them).
        var maximumPerUser: Int {
            switch self {
            case .longPoll: 8
            case .stream: 4
            }
        }
    }

    private struct Ticket {
        var user: UserID
        var kind: Kind
        var woken = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private var tickets: [UInt64: Ticket] = [:]
    private var ticketsByUser: [UserID: Set<UInt64>] = [:]
    private var couriersTickets: Set<UInt64> = []
    private var nextTicket: UInt64 = 0
    private var held: [Kind: Int] = [:]
    private let gauges: [Kind: Gauge] = [
        .longPoll: Gauge(label: "orderly_gateway_long_polls_waiting"),
        .stream: Gauge(label: "orderly_gateway_streams_open"),
    ]
    /// Whether the process is shutting down: waits return at once, streams end.
    private(set) var isClosed = false

    public init() {}

    /// Starts listening for `user`'s wake-ups (and, for a courier, the couriers'); call `leave`
    /// when done. Nil when as many of `kind` as allowed wait for the user already.
    func enter(_ user: UserID, _ kind: Kind, courier: Bool = false) -> UInt64? {
        let held = ticketsByUser[user, default: []].count { tickets[$0]?.kind == kind }
        guard held < kind.maximumPerUser else { return nil }
        nextTicket += 1
        tickets[nextTicket] = Ticket(user: user, kind: kind)
        ticketsByUser[user, default: []].insert(nextTicket)
        if courier { couriersTickets.insert(nextTicket) }
        record(kind, 1)
        return nextTicket
    }

    func leave(_ ticket: UInt64) {
        guard let entry = tickets.removeValue(forKey: ticket) else { return }
        entry.waiter?.resume()
        ticketsByUser[entry.user]?.remove(ticket)
        couriersTickets.remove(ticket)
        if ticketsByUser[entry.user]?.isEmpty == true { ticketsByUser[entry.user] = nil }
        record(entry.kind, -1)
    }

    /// Returns once `ticket`'s user was woken since the last wait, after `timeout`, or at
    /// shutdown.
    func wait(_ ticket: UInt64, timeout: Duration) async {
        guard let entry = tickets[ticket], !entry.woken, !isClosed else {
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

    /// Wakes every poll and stream waiting for one of `users`, and every courier's when
    /// `couriers`.
    func wake(_ users: [UserID], couriers: Bool = false) {
        for user in users {
            for ticket in ticketsByUser[user] ?? [] { wake(ticket) }
        }
        if couriers {
            for ticket in couriersTickets { wake(ticket) }
        }
    }

    private func wake(_ ticket: UInt64) {
        tickets[ticket]?.woken = true
        release(ticket)
    }

    /// Releases every wait, now and from now on.
    func close() {
        isClosed = true
        for ticket in tickets.keys { release(ticket) }
    }

    /// Waits for shutdown, then closes.
    public func run() async throws {
        try? await gracefulShutdown()
        close()
    }

    private func release(_ ticket: UInt64) {
        tickets[ticket]?.waiter?.resume()
        tickets[ticket]?.waiter = nil
    }

    private func record(_ kind: Kind, _ change: Int) {
        held[kind, default: 0] += change
        gauges[kind]?.record(held[kind, default: 0])
    }
}
