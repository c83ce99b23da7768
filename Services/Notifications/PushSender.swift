import Contracts
import Domain
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Pushes each stored notification to its user's devices. It never holds up what stores
/// notifications: they are handed over into a bounded queue and sent from here, at most
/// `concurrency` at once; a device whose token the provider refuses is removed; a push the
/// provider cannot take now is tried again after a backoff, up to `attempts` times in all.
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
                ($0, Counter(label: "notifications_pushes_total", dimensions: [("outcome", $0)]))
            })
    }

    /// Hands `pushes` over to be sent; returns at once.
    func push(_ pushes: [StoredNotification]) {
        guard !pushes.isEmpty else { return }
        let dropped = pending.withLock { pending in
            pending += pushes
            let dropped = max(0, pending.count - Self.capacity)
            pending.removeFirst(dropped)
            return dropped
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
                        targets = batch.flatMap { push in byUser[push.userID, default: []].map { (push, $0) } }
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
            switch await provider.send(push, device) {
            case .delivered:
                outcomes["delivered"]?.increment()
                return
            case .tokenInvalid(let since, let reason):
                outcomes["token_invalid"]?.increment()
                logger.info("device removed", metadata: ["device.id": "\(device.id)", "reason": "\(reason)"])
                do {
                    try await devices.removeUnregistered(token: device.token, validUntil: since)
                } catch {
                    logger.warning("device not removed", metadata: ["device.id": "\(device.id)", "error": "\(error)"])
                }
                return
            case .refused(let reason):
                outcomes["refused"]?.increment()
                logger.warning("push refused", metadata: ["device.id": "\(device.id)", "reason": "\(reason)"])
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

    /// The wait after `attempt` failed attempts: the base doubled per attempt, ±50 %.
    private func backoff(after attempt: Int) -> Duration {
        retryBase * (1 << min(max(attempt - 1, 0), 10)) * Double.random(in: 0.5...1.5)
    }
}
