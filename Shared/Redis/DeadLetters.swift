import Domain
import Foundation

/// What operators do with the dead-letter streams (`orderly:dlq:<group>`): see which groups
/// have entries, read them, and replay one: its event goes back on the stream it came from, and
/// leaves the dead-letter stream in the same transaction. Every group of that stream sees it
/// again; those that had applied it drop it by its id (their inbox). With a service's events
/// over several streams (`RedisConfiguration.streamShards`), each stream's dead letters are
/// beside it in its slot (`deadLetterStream(of:from:)`), and are listed here as a group named with
/// the shard's hash tag (`notifications:{orders.3}`).
public struct DeadLetters: Sendable {
    /// One dead-lettered entry: the event's fields as they were, and why it failed.
    public struct Entry: Sendable, Hashable {
        public var id: String
        public var error: String
        public var sourceStream: String
        public var sourceID: String
        /// The event's own fields (`id`, `type`, `aggregate_id`, …).
        public var fields: [String: String]
    }

    public let redis: RedisClient

    public init(redis: RedisClient) { self.redis = redis }

    static let prefix = deadLetterStream(of: "")

    /// The groups with a dead-letter stream, and how many entries each holds.
    public func groups() async throws -> [(group: String, count: Int)] {
        var groups: [(group: String, count: Int)] = []
        for stream in try await redis.keys(matching: Self.prefix + "*") {
            let length = try await redis.send("XLEN", RedisArgument(stream)).integer ?? 0
            groups.append((String(stream.dropFirst(Self.prefix.count)), Int(length)))
        }
        return groups
    }

    /// The group's entries, oldest first, from `after` (exclusive) on.
    public func list(group: String, after: String? = nil, limit: Int = 50) async throws -> [Entry] {
        let start = after.map { "(" + $0 } ?? "-"
        let reply = try await redis.send(
            "XRANGE", RedisArgument(deadLetterStream(of: group)), RedisArgument(start), "+", "COUNT",
            RedisArgument(limit))
        return try (reply.elements ?? []).map { try Self.entry(RedisClient.entry($0)) }
    }

    /// One entry, or nil.
    public func entry(group: String, id: String) async throws -> Entry? {
        let reply = try await redis.send(
            "XRANGE", RedisArgument(deadLetterStream(of: group)), RedisArgument(id), RedisArgument(id))
        return try reply.elements?.first.map { try Self.entry(RedisClient.entry($0)) }
    }

    /// Puts the entry's event back on its stream and removes it from the dead-letter stream, in
    /// one transaction; returns its id on the stream. Refuses an entry that is not a valid event
    /// (it would only fail again) or whose source is not an event stream.
    @discardableResult
    public func replay(group: String, id: String) async throws -> String {
        guard let entry = try await entry(group: group, id: id) else {
            throw OrderlyError(.notFound, "no entry \(id) in \(deadLetterStream(of: group))")
        }
        guard entry.sourceStream.hasPrefix(eventStream(of: "")) else {
            throw OrderlyError(.failedPrecondition, "entry \(id) came from \(entry.sourceStream), not an event stream")
        }
        let event = entry.fields.mapValues { Array($0.utf8) }
        if case .failure(let problem) = EventFields.decode(event) {
            throw OrderlyError(
                .failedPrecondition, "entry \(id) is not a valid event (\(problem)); it would fail again")
        }
        var add: [RedisArgument] = ["XADD", RedisArgument(entry.sourceStream), "*"]
        for (name, value) in event.sorted(by: { $0.key < $1.key }) {
            add += [RedisArgument(name), RedisArgument(value)]
        }
        let replies = try await redis.pipeline([
            ["MULTI"], add, ["XDEL", RedisArgument(deadLetterStream(of: group)), RedisArgument(id)], ["EXEC"],
        ])
        guard let results = replies.last?.elements, let newID = results.first?.text else {
            throw RedisError.unexpectedReply("replay transaction: \(replies)")
        }
        return newID
    }

    private static func entry(_ raw: RedisStreamEntry) throws -> Entry {
        func text(_ name: String) -> String { raw.fields[name].map { String(decoding: $0, as: UTF8.self) } ?? "" }
        var fields: [String: String] = [:]
        for (name, value) in raw.fields where !["error", "source_stream", "source_id"].contains(name) {
            fields[name] = String(decoding: value, as: UTF8.self)
        }
        return Entry(
            id: raw.id, error: text("error"), sourceStream: text("source_stream"), sourceID: text("source_id"),
            fields: fields)
    }
}
