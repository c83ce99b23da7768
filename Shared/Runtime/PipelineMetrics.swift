import Foundation
import Logging
import Metrics
import Redis
import Storage

/// The event pipeline's gauges, read when `/metrics` is scraped: the outbox's backlog and the age
/// of its oldest unsent event (this process's database), and for each stream and group this
/// process consumes, the entries not yet read (`lag`), read and not acknowledged (`pending`),
/// and its dead letters, from Redis.
struct PipelineMetrics: Sendable {
    let relay: OutboxRelay
    let redis: RedisClient
    /// The stream and group of each consumer of this process.
    let sources: [(stream: String, group: String)]
    let logger: Logger

    func collect() async {
        do {
            let (count, oldest) = try await relay.backlog()
            Gauge(label: "orderly_outbox_backlog").record(count)
            Gauge(label: "orderly_outbox_oldest_unsent_age_seconds").record(
                oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
        } catch {
            logger.debug("the outbox's backlog could not be read for /metrics", metadata: ["error": "\(error)"])
        }
        let groups = ConsumerGroups(redis: redis)
        for (stream, group) in sources {
            do {
                if let found = try await groups.groups(of: stream).first(where: { $0.name == group }) {
                    let dimensions = [("stream", stream), ("group", group)]
                    if let lag = found.lag {
                        Gauge(label: "orderly_stream_group_lag", dimensions: dimensions).record(lag)
                    }
                    Gauge(label: "orderly_stream_group_pending", dimensions: dimensions).record(found.pending)
                }
            } catch {
                logger.debug(
                    "a consumer group's figures could not be read for /metrics",
                    metadata: ["events.stream": "\(stream)", "error": "\(error)"])
            }
        }
        // Each group's dead letters once, over the streams it reads (one per shard).
        for (group, streams) in Dictionary(grouping: sources, by: \.group).mapValues({ $0.map(\.stream) }) {
            do {
                Gauge(label: "orderly_dead_letters", dimensions: [("group", group)]).record(
                    try await groups.deadLetters(of: group, from: streams))
            } catch {
                logger.debug(
                    "a consumer group's dead letters could not be read for /metrics",
                    metadata: ["events.group": "\(group)", "error": "\(error)"])
            }
        }
    }
}
