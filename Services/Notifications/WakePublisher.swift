import Contracts
import Domain
import Foundation
import Logging
import Redis
import Synchronization

/// Tells every gateway which users have something new, on `orderly:wake`; with streams over
/// shards (`RedisConfiguration.streamShards`), on as many sharded channels, each user's on the
/// one of their id (`SPUBLISH`), so that no message goes to every node of a cluster.
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
                let shards = redis.configuration.streamShards
                guard shards > 1 else {
                    let message = try JSONEncoder().encode(batch)
                    try await redis.send(["PUBLISH", RedisArgument(WakeUp.channel), RedisArgument(Array(message))])
                    continue
                }
                // What the couriers on duty are told (for no user) goes to one channel, as any
                // would do: every gateway hears every shard.
                let byChannel = Dictionary(grouping: batch) { wakeUp in
                    shardedChannel(of: WakeUp.channel, for: wakeUp.userID?.description ?? "", shards: shards)
                }
                for (channel, wakeUps) in byChannel {
                    let message = try JSONEncoder().encode(wakeUps)
                    try await redis.send(["SPUBLISH", RedisArgument(channel), RedisArgument(Array(message))])
                }
            } catch {
                logger.warning("wake-ups not published", metadata: ["error": "\(error)", "wake_ups": "\(batch.count)"])
            }
        }
    }
}
