/// The consumer groups of the event streams as Redis reports them (`XINFO GROUPS`), for the
/// pipeline's metrics and `orderly pipeline`.
public struct ConsumerGroups: Sendable {
    /// One group of one stream.
    public struct Group: Sendable, Hashable {
        public var stream: String
        public var name: String
        public var consumers: Int64
        /// Entries delivered to the group and not yet acknowledged.
        public var pending: Int64
        /// Entries not yet delivered to the group; nil when Redis cannot tell (after a trim
        /// past what it read, say).
        public var lag: Int64?
        public var lastDelivered: String
    }

    public let redis: RedisClient

    public init(redis: RedisClient) { self.redis = redis }

    /// The services' event streams (`orderly:events:*`), sorted.
    public func streams() async throws -> [String] {
        try await redis.keys(matching: eventStream(of: "*"), type: "stream")
    }

    /// The groups reading `stream`; none when it does not exist.
    public func groups(of stream: String) async throws -> [Group] {
        let reply: RedisValue
        do {
            reply = try await redis.send("XINFO", "GROUPS", RedisArgument(stream))
        } catch RedisError.server(let message) where message.contains("no such key") {
            return []
        }
        return (reply.elements ?? []).compactMap { entry in
            // Each group is a flat list of names and values.
            let parts = entry.elements ?? []
            var fields: [String: RedisValue] = [:]
            for index in stride(from: 0, to: parts.count - 1, by: 2) {
                if let name = parts[index].text { fields[name] = parts[index + 1] }
            }
            guard let name = fields["name"]?.text else { return nil }
            return Group(
                stream: stream, name: name, consumers: fields["consumers"]?.integer ?? 0,
                pending: fields["pending"]?.integer ?? 0, lag: fields["lag"]?.integer,
                lastDelivered: fields["last-delivered-id"]?.text ?? "")
        }
    }

    /// How many entries from `streams` wait in `group`'s dead-letter streams
    /// (`deadLetterStream(of:from:)`: one for a service's only stream, one beside each stream of a
    /// shard); with no streams named, in `deadLetterStream(of:)`.
    public func deadLetters(of group: String, from streams: [String] = []) async throws -> Int64 {
        var total: Int64 = 0
        let names =
            streams.isEmpty ? [deadLetterStream(of: group)] : streams.map { deadLetterStream(of: group, from: $0) }
        for stream in Set(names) {
            total += try await redis.send("XLEN", RedisArgument(stream)).integer ?? 0
        }
        return total
    }
}
