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
        for (stream, group) in sources {
            do {
                let reply = try await redis.send("XINFO", "GROUPS", RedisArgument(stream))
                for entry in reply.elements ?? [] {
                    let fields = Self.fields(of: entry)
                    guard fields["name"]?.text == group else { continue }
                    let dimensions = [("stream", stream), ("group", group)]
                    if let lag = fields["lag"]?.integer {
                        Gauge(label: "orderly_stream_group_lag", dimensions: dimensions).record(lag)
                    }
                    if let pending = fields["pending"]?.integer {
                        Gauge(label: "orderly_stream_group_pending", dimensions: dimensions).record(pending)
                    }
                }
                let dead = try await redis.send("XLEN", RedisArgument(deadLetterStream(of: group))).integer ?? 0
                Gauge(label: "orderly_dead_letters", dimensions: [("group", group)]).record(dead)
            } catch {
                logger.debug(
                    "a consumer group's figures could not be read for /metrics",
                    metadata: ["events.stream": "\(stream)", "error": "\(error)"])
            }
        }
    }

    /// XINFO GROUPS answers each group as a flat list of names and values.
    static func fields(of entry: RedisValue) -> [String: RedisValue] {
        let parts = entry.elements ?? []
        var fields: [String: RedisValue] = [:]
        for index in stride(from: 0, to: parts.count - 1, by: 2) {
            if let name = parts[index].text { fields[name] = parts[index + 1] }
        }
        return fields
    }
}
