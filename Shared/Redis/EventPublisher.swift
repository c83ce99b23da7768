public import Events
import Foundation

/// Publishes a service's events to its stream, and trims the stream of what every consumer
/// group has acknowledged. With `RedisConfiguration.streamShards` above 1 the events are spread
/// over that many streams by store (`eventStreams(of:shards:)`), each with its own mark in its
/// slot, and every publish under a mark moves every shard's.
public struct EventPublisher: EventPublishing {
    private let redis: RedisClient
    /// Each shard's stream, and the mark beside it.
    private let shards: [(stream: String, mark: String)]

    /// Events of `service`, on `orderly:events:<service>` (or its shards' streams).
    public init(redis: RedisClient, service: String) {
        self.redis = redis
        self.shards = eventStreams(of: service, shards: redis.configuration.streamShards).map { stream in
            (stream, "orderly:published:\(service)" + (hashTag(of: stream).map { ":\($0)" } ?? ""))
        }
    }

    /// The events by shard, each shard's in their order.
    private func byShard(_ events: [DomainEvent]) -> [[DomainEvent]] {
        var grouped = [[DomainEvent]](repeating: [], count: shards.count)
        for event in events { grouped[streamShard(of: event, shards: shards.count)].append(event) }
        return grouped
    }

    /// Appends the event; returns its stream id.
    @discardableResult
    public func publish(_ event: DomainEvent) async throws -> String {
        try await redis.xadd(
            shards[streamShard(of: event, shards: shards.count)].stream, fields: EventFields.encode(event))
    }

    /// Appends the events in order, in one round trip per shard. When it throws, any prefix of
    /// each shard's may have been appended: publish them all again (consumers drop the repeats by
    /// event id).
    public func publish(_ events: [DomainEvent]) async throws {
        for (shard, events) in zip(shards, byShard(events)) where !events.isEmpty {
            let commands = events.map { event in
                RedisClient.xaddArguments(shard.stream, fields: EventFields.encode(event))
            }
            for reply in try await redis.pipeline(commands) {
                if case .error(let message) = reply { throw RedisError.server(message) }
            }
        }
    }

    /// Appends the events, all or none, if Redis still has everything published up to
    /// `expected`, and marks `last` as published; or finds that Redis is behind.
    ///
    /// The mark is a number kept beside the stream (`orderly:published:<service>`), written in
    /// the same script as the entries, so Redis loses both or neither. A Redis that restarted
    /// from a file without its last second, or came back empty, has a mark behind the number of
    /// the last row the outbox marked sent: those rows must be published again. An empty batch
    /// with `last == expected` only checks.
    ///
    /// Over shards, each shard's script runs apart (side by side), every shard's mark moving
    /// with each batch, events or not; Redis is behind when any shard is, from the lowest mark
    /// found. The shards that were not behind then get the rows after it again, which their
    /// consumers drop by event id.
    public func publish(
        _ events: [DomainEvent], through last: Int64, expecting expected: Int64
    ) async throws -> MarkedPublish {
        if shards.count == 1 { return try await publish(events, on: shards[0], through: last, expecting: expected) }
        let grouped = byShard(events)
        let outcomes = try await withThrowingTaskGroup(of: MarkedPublish.self) { group in
            for (shard, events) in zip(shards, grouped) {
                group.addTask {
                    try await publish(events, on: shard, through: last, expecting: expected)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var previous = expected
        var behind: Int64?
        for outcome in outcomes {
            switch outcome {
            case .published(let mark): previous = max(previous, mark)
            case .behind(let mark): behind = min(behind ?? mark, mark)
            }
        }
        return behind.map { .behind(mark: $0) } ?? .published(previous: previous)
    }

    private func publish(
        _ events: [DomainEvent], on shard: (stream: String, mark: String), through last: Int64,
        expecting expected: Int64
    ) async throws -> MarkedPublish {
        var arguments: [RedisArgument] = [
            "EVAL", RedisArgument(Self.markedPublish), "2", RedisArgument(shard.stream), RedisArgument(shard.mark),
            RedisArgument(String(expected)), RedisArgument(String(last)),
        ]
        for event in events {
            let fields = EventFields.encode(event)
            arguments.append(RedisArgument(fields.count))
            for (name, value) in fields { arguments += [RedisArgument(name), RedisArgument(value)] }
        }
        let reply = try await redis.send(arguments)
        guard let parts = reply.elements, parts.count == 2, let appended = parts[0].integer,
            let mark = parts[1].integer
        else { throw RedisError.unexpectedReply("publish script answered \(reply)") }
        return appended == 1 ? .published(previous: mark) : .behind(mark: mark)
    }

    /// KEYS: the stream, the mark. ARGV: the mark expected, the mark to set, then per event its
    /// field count and its names and values.
    private static let markedPublish = """
        local mark = tonumber(redis.call('GET', KEYS[2]) or '0')
        if not mark then return redis.error_reply('ERR ' .. KEYS[2] .. ' does not hold a number') end
        if mark < tonumber(ARGV[1]) then return {0, mark} end
        local i = 3
        while i <= #ARGV do
          local n = tonumber(ARGV[i])
          redis.call('XADD', KEYS[1], '*', unpack(ARGV, i + 1, i + 2 * n))
          i = i + 1 + 2 * n
        end
        redis.call('SET', KEYS[2], ARGV[2])
        return {1, mark}
        """

    /// Removes the entries every consumer group has acknowledged: those before the oldest entry
    /// any group still has pending or has not read yet. Never by length alone: with no group,
    /// nothing is removed. Over shards, each stream is trimmed, and the oldest entry kept is the
    /// oldest of them all.
    @discardableResult
    public func trimAcknowledged() async throws -> StreamTrim {
        var total = StreamTrim(removed: 0, oldestKept: nil, neededBy: nil)
        for shard in shards {
            let trim = try await trimAcknowledged(shard.stream)
            total.removed += trim.removed
            if let oldest = trim.oldestKept, total.oldestKept.map({ oldest < $0 }) ?? true {
                (total.oldestKept, total.neededBy) = (oldest, trim.neededBy)
            }
        }
        return total
    }

    private func trimAcknowledged(_ stream: String) async throws -> StreamTrim {
        let groups: RedisValue
        do {
            groups = try await redis.send("XINFO", "GROUPS", RedisArgument(stream))
        } catch RedisError.server(let message) where message.contains("no such key") {
            return StreamTrim(removed: 0, oldestKept: nil, neededBy: nil)
        }
        var keep: (from: StreamID, group: String)?
        for group in groups.elements ?? [] {
            guard let name = Self.field("name", of: group)?.text,
                let delivered = Self.field("last-delivered-id", of: group)?.text.flatMap(StreamID.init)
            else { throw RedisError.unexpectedReply("XINFO GROUPS: \(group)") }
            var needed = delivered.next
            if Self.field("pending", of: group)?.integer ?? 0 > 0 {
                let pending = try await redis.send("XPENDING", RedisArgument(stream), RedisArgument(name))
                if let oldest = pending.elements?.dropFirst().first?.text.flatMap(StreamID.init) {
                    needed = min(needed, oldest)
                }
            }
            if keep == nil || needed < keep!.from { keep = (needed, name) }
        }
        guard let keep else { return StreamTrim(removed: 0, oldestKept: nil, neededBy: nil) }
        let replies = try await redis.pipeline([
            ["XTRIM", RedisArgument(stream), "MINID", RedisArgument(keep.from.description)],
            ["XRANGE", RedisArgument(stream), RedisArgument(keep.from.description), "+", "COUNT", "1"],
        ])
        guard let removed = replies[0].integer, let range = replies[1].elements else {
            throw RedisError.unexpectedReply("XTRIM, XRANGE: \(replies)")
        }
        let oldest = range.first?.elements?.first?.text.flatMap(StreamID.init)
        return StreamTrim(removed: Int(removed), oldestKept: oldest, neededBy: oldest == nil ? nil : keep.group)
    }

    /// The value after `name` in a reply of alternating names and values (`XINFO`).
    private static func field(_ name: String, of reply: RedisValue) -> RedisValue? {
        guard let elements = reply.elements else { return nil }
        var index = 0
        while index + 1 < elements.count {
            if elements[index].text == name { return elements[index + 1] }
            index += 2
        }
        return nil
    }
}
