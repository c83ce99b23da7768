import Contracts
import Domain
import Events
import Foundation
import Logging
import Metrics
import Runtime
import ServiceLifecycle
import Synchronization

/// Pushes each stored notification to its user's devices. It never holds up what stores
/// notifications: they are handed over into a bounded queue and sent from here, at most
/// `concurrency` at once; a device the provider refuses for good is removed; a push the
/// provider cannot take now is tried again after a backoff, up to `attempts` times in all.
/// Users share the sender fairly: a full queue drops the pushes of those who hold the most of
/// it, and each batch is sent user by user in turn, so that one user's many devices and
/// notifications delay no one else's.
/// Best effort by design: the inbox keeps every notification and each push carries its `seq`,
/// so an app that missed one reads the inbox after the last `seq` it saw.
final class PushSender: Service, Sendable {
    private let provider: PushProvider
    private let devices: DevicesRepository
    private let attempts: Int
    private let retryBase: Duration
    private let logger: Logger
    private let pending = Mutex<[StoredNotification]>([])
    private let doorbell = Doorbell()
    private let outcomes: [String: Counter]
    /// How long each send took, by its outcome (`retry` when the provider could not take it then).
    private let sendTimes: [String: Metrics.Timer]

    /// At most this many pushes wait; beyond it, the oldest are dropped (the inbox has them).
    static let capacity = 10_000
    /// At most this many pushes are in flight.
    static let concurrency = 64

    init(provider: PushProvider, devices: DevicesRepository, attempts: Int, retryBase: Duration, logger: Logger) {
        self.provider = provider
        self.devices = devices
        self.attempts = max(1, attempts)
        self.retryBase = retryBase
        self.logger = logger
        outcomes = Dictionary(
            uniqueKeysWithValues: ["delivered", "token_invalid", "refused", "given_up", "dropped"].map {
                ($0, Counter(label: "orderly_push_sends_total", dimensions: [("outcome", $0)]))
            })
        sendTimes = Dictionary(
            uniqueKeysWithValues: ["delivered", "token_invalid", "refused", "retry"].map {
                ($0, Metrics.Timer(label: "orderly_push_send_duration_seconds", dimensions: [("outcome", $0)]))
            })
    }

    /// Hands `pushes` over to be sent; returns at once.
    func push(_ pushes: [StoredNotification]) {
        guard !pushes.isEmpty else { return }
        // Sent from the pusher's own task: each carries on the trace that made it.
        var pushes = pushes
        if let trace = TraceContext.current() {
            for index in pushes.indices where pushes[index].trace == nil { pushes[index].trace = trace }
        }
        let dropped = pending.withLock { [pushes] pending in
            pending += pushes
            let before = pending.count
            pending = Self.fairShare(of: pending, capacity: Self.capacity)
            return before - pending.count
        }
        if dropped > 0 {
            outcomes["dropped"]?.increment(by: dropped)
            logger.warning("pushes dropped: too many waiting", metadata: ["pushes": "\(dropped)"])
        }
        doorbell.ring()
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                var inFlight = 0
                while !Task.isCancelled {
                    let batch = await self.next()
                    guard !batch.isEmpty else { continue }
                    let targets: [(StoredNotification, Device)]
                    do {
                        let found = try await self.devices.devices(of: Set(batch.map(\.userID)))
                        let byUser = Dictionary(grouping: found, by: \.userID)
                        targets = Self.takingTurns(
                            batch.flatMap { push in byUser[push.userID, default: []].map { (push, $0) } })
                    } catch {
                        self.logger.warning(
                            "devices not read; pushes dropped",
                            metadata: ["error": "\(error)", "pushes": "\(batch.count)"])
                        continue
                    }
                    for (push, device) in targets {
                        if inFlight == Self.concurrency {
                            await group.next()
                            inFlight -= 1
                        }
                        group.addTask { await self.deliver(push, to: device) }
                        inFlight += 1
                    }
                }
                group.cancelAll()
            }
        }
        await provider.shutdown()
    }

    /// The pushes waiting, once there are some (or none when cancelled).
    private func next() async -> [StoredNotification] {
        while !Task.isCancelled {
            let batch = pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            if !batch.isEmpty { return batch }
            await doorbell.wait(upTo: .seconds(1))
        }
        return []
    }

    /// Sends `push` to `device`, again after a backoff while the provider cannot take it.
    private func deliver(_ push: StoredNotification, to device: Device) async {
        for attempt in 1...attempts {
            let started = ContinuousClock.now
            let result = await TraceContext.span(
                "push.send", continuing: push.trace, kind: .client,
                attributes: {
                    $0["orderly.notification.seq"] = Int(push.seq)
                    $0["orderly.push.attempt"] = attempt
                }
            ) { await provider.send(push, device) }
            let took = ContinuousClock.now - started
            let outcome =
                switch result {
                case .delivered: "delivered"
                case .tokenInvalid: "token_invalid"
                case .refused: "refused"
                case .retry: "retry"
                }
            sendTimes[outcome]?.record(duration: took)
            switch result {
            case .delivered:
                outcomes["delivered"]?.increment()
                return
            case .tokenInvalid(let since, let reason):
                outcomes["token_invalid"]?.increment()
                await remove(device, since: since, reason: reason)
                return
            case .refused(let reason):
                outcomes["refused"]?.increment()
                logger.error("push refused", metadata: ["device.id": "\(device.id)", "reason": "\(reason)"])
                return
            case .retry(let why):
                guard attempt < attempts else {
                    outcomes["given_up"]?.increment()
                    logger.warning(
                        "push given up",
                        metadata: ["device.id": "\(device.id)", "attempts": "\(attempt)", "last": "\(why)"])
                    return
                }
            }
            do {
                try await Task.sleep(for: backoff(after: attempt))
            } catch {
                return
            }
        }
    }

    /// Removes `device`, unless it was registered again after `since`.
    private func remove(_ device: Device, since: Date, reason: String) async {
        logger.info("device removed", metadata: ["device.id": "\(device.id)", "reason": "\(reason)"])
        do {
            try await devices.removeUnregistered(token: device.token, validUntil: since)
        } catch {
            logger.warning("device not removed", metadata: ["device.id": "\(device.id)", "error": "\(error)"])
        }
    }

    /// At most `capacity` of `pending`, in their order: when there are more, each user keeps as
    /// many as every user may (the same number for all, as high as fits), their newest, and what
    /// that leaves of the capacity goes one more each to the users waiting longest.
    static func fairShare(of pending: [StoredNotification], capacity: Int) -> [StoredNotification] {
        guard pending.count > capacity else { return pending }
        var counts: [UserID: Int] = [:]
        var users: [UserID] = []  // by their oldest push waiting
        for push in pending {
            if counts[push.userID] == nil { users.append(push.userID) }
            counts[push.userID, default: 0] += 1
        }
        // The largest share every user may keep without going over the capacity.
        var share = 0
        var kept = 0
        let sorted = counts.values.sorted()
        for (index, count) in sorted.enumerated() {
            let rest = sorted.count - index
            guard kept + count * rest <= capacity else {
                share = max(share, (capacity - kept) / rest)
                break
            }
            kept += count
            share = count
        }
        var keep = counts.mapValues { min($0, share) }
        var left = capacity - keep.values.reduce(0, +)
        for user in users where left > 0 && counts[user]! > share {
            keep[user]! += 1
            left -= 1
        }
        var result: [StoredNotification] = []
        for push in pending.reversed() where keep[push.userID, default: 0] > 0 {
            keep[push.userID, default: 0] -= 1
            result.append(push)
        }
        return result.reversed()
    }

    /// `targets` ordered user by user in turn: each user's first, then each one's second, and so
    /// on, each user's in their order.
    static func takingTurns(_ targets: [(StoredNotification, Device)]) -> [(StoredNotification, Device)] {
        var queues: [UserID: [(StoredNotification, Device)]] = [:]
        var users: [UserID] = []
        for target in targets {
            if queues[target.0.userID] == nil { users.append(target.0.userID) }
            queues[target.0.userID, default: []].append(target)
        }
        var ordered: [(StoredNotification, Device)] = []
        var round = 0
        while ordered.count < targets.count {
            for user in users {
                if let queue = queues[user], round < queue.count { ordered.append(queue[round]) }
            }
            round += 1
        }
        return ordered
    }

    /// The wait after `attempt` failed attempts: the base doubled per attempt, ±50 %.
    private func backoff(after attempt: Int) -> Duration {
        retryBase * (1 << min(max(attempt - 1, 0), 10)) * Double.random(in: 0.5...1.5)
    }
}

extension PushSender {
    /// The sender of the platforms configured (Apple's push service, Firebase Cloud Messaging,
    /// Web Push), or nil when none is, said in the log either way. Retries wait the shortest of
    /// their backoffs.
    static func configured(
        apns: APNsSettings?, fcm: FCMSettings?, web: WebPushSettings?, devices: DevicesRepository, logger: Logger
    ) throws -> PushSender? {
        var providers: [String: PushProvider] = [:]
        if let apns { providers["ios"] = .apns(apns, logger: logger) }
        if let fcm { providers["android"] = .fcm(FCMClient(settings: fcm)) }
        if let web {
            let client = try WebPushClient(settings: web)
            providers["web"] = .webPush(client)
            logger.info("web push on: browsers subscribe with this key", metadata: ["vapid.key": "\(client.publicKey)"])
        }
        if apns == nil { logger.info("pushes to iPhones are off: ORDERLY_APNS_KEY, _KEY_ID and _TEAM_ID are not set") }
        if fcm == nil { logger.info("pushes to Android are off: ORDERLY_PUSH_FCM_SERVICE_ACCOUNT is not set") }
        if web == nil { logger.info("web push is off: ORDERLY_PUSH_WEB_VAPID_KEY and _SUBJECT are not set") }
        guard !providers.isEmpty else { return nil }
        let retryBases = [apns?.retryBase, fcm?.retryBase, web?.retryBase].compactMap { $0 }
        let attempts = [apns?.attempts, fcm?.attempts, web?.attempts].compactMap { $0 }
        return PushSender(
            provider: .byPlatform(providers), devices: devices, attempts: attempts.max() ?? 1,
            retryBase: retryBases.min() ?? .seconds(1), logger: logger)
    }
}
