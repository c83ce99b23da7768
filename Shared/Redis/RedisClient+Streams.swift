import Domain

/// One entry of a stream: its id and its fields.
public struct RedisStreamEntry: Sendable, Hashable {
    public var id: String
    public var fields: [String: [UInt8]]
}

/// Stream commands (`XADD`, consumer groups, reclaiming).
extension RedisClient {
    /// Appends an entry and returns its id.
    @discardableResult
    public func xadd(_ stream: String, fields: [(String, [UInt8])]) async throws -> String {
        let arguments = Self.xaddArguments(stream, fields: fields)
        guard let id = try await send(arguments).text else { throw RedisError.unexpectedReply("XADD without an id") }
        return id
    }

    /// The `XADD` command, for sending alone or in a pipeline.
    static func xaddArguments(_ stream: String, fields: [(String, [UInt8])]) -> [RedisArgument] {
        var arguments: [RedisArgument] = ["XADD", RedisArgument(stream), "*"]
        for (name, value) in fields { arguments += [RedisArgument(name), RedisArgument(value)] }
        return arguments
    }

    /// Creates a consumer group (and the stream, when missing); an existing group is fine.
    public func xgroupCreate(_ stream: String, group: String, startingAt start: String = "0") async throws {
        do {
            try await send(
                "XGROUP", "CREATE", RedisArgument(stream), RedisArgument(group), RedisArgument(start), "MKSTREAM")
        } catch RedisError.server(let message) where message.hasPrefix("BUSYGROUP") {
            return
        }
    }

    /// Reads entries never delivered to the group (`>`), waiting up to `block` for some.
    public func xreadgroup(
        _ stream: String, group: String, consumer: String, count: Int, block: Duration? = nil
    ) async throws -> [RedisStreamEntry] {
        try Self.xreadgroupEntries(
            try await send(
                Self.xreadgroupArguments(stream, group: group, consumer: consumer, count: count, block: block)))
    }

    static func xreadgroupArguments(
        _ stream: String, group: String, consumer: String, count: Int, block: Duration?
    ) -> [RedisArgument] {
        var arguments: [RedisArgument] = ["XREADGROUP", "GROUP", RedisArgument(group), RedisArgument(consumer)]
        arguments += ["COUNT", RedisArgument(count)]
        if let block {
            arguments += ["BLOCK", RedisArgument(block.wholeMilliseconds)]
        }
        arguments += ["STREAMS", RedisArgument(stream), ">"]
        return arguments
    }

    static func xreadgroupEntries(_ reply: RedisValue) throws -> [RedisStreamEntry] {
        guard let streams = reply.elements else { throw RedisError.unexpectedReply("XREADGROUP: \(reply)") }
        guard let first = streams.first?.elements, first.count == 2, let entries = first[1].elements else {
            return []
        }
        return try entries.map(entry)
    }

    /// Acknowledges entries; returns how many were pending.
    @discardableResult
    public func xack(_ stream: String, group: String, ids: [String]) async throws -> Int64 {
        guard !ids.isEmpty else { return 0 }
        return try await send(Self.xackArguments(stream, group: group, ids: ids)).integer ?? 0
    }

    static func xackArguments(_ stream: String, group: String, ids: [String]) -> [RedisArgument] {
        ["XACK", RedisArgument(stream), RedisArgument(group)] + ids.map { RedisArgument($0) }
    }

    /// Takes over entries another consumer left pending for at least `minimumIdle`; returns them
    /// and the id to continue from (`0-0` when the scan is complete).
    public func xautoclaim(
        _ stream: String, group: String, consumer: String, minimumIdle: Duration, start: String = "0-0",
        count: Int = 100
    ) async throws -> (next: String, entries: [RedisStreamEntry]) {
        try Self.xautoclaimEntries(
            try await send(
                Self.xautoclaimArguments(
                    stream, group: group, consumer: consumer, minimumIdle: minimumIdle, start: start, count: count)))
    }

    static func xautoclaimArguments(
        _ stream: String, group: String, consumer: String, minimumIdle: Duration, start: String, count: Int
    ) -> [RedisArgument] {
        [
            "XAUTOCLAIM", RedisArgument(stream), RedisArgument(group), RedisArgument(consumer),
            RedisArgument(minimumIdle.wholeMilliseconds), RedisArgument(start), "COUNT", RedisArgument(count),
        ]
    }

    static func xautoclaimEntries(_ reply: RedisValue) throws -> (next: String, entries: [RedisStreamEntry]) {
        guard let parts = reply.elements, parts.count >= 2, let next = parts[0].text, let entries = parts[1].elements
        else { throw RedisError.unexpectedReply("XAUTOCLAIM: \(reply)") }
        // Entries deleted meanwhile come back as nil; they are skipped.
        return (next, try entries.filter { $0 != .null }.map(entry))
    }

    /// How many entries the group has delivered and not yet acknowledged.
    public func xpendingCount(_ stream: String, group: String) async throws -> Int64 {
        let reply = try await send("XPENDING", RedisArgument(stream), RedisArgument(group))
        guard let count = reply.elements?.first?.integer else { throw RedisError.unexpectedReply("XPENDING: \(reply)") }
        return count
    }

    static func entry(_ value: RedisValue) throws -> RedisStreamEntry {
        guard let parts = value.elements, parts.count == 2, let id = parts[0].text, let flat = parts[1].elements,
            flat.count % 2 == 0
        else { throw RedisError.unexpectedReply("stream entry: \(value)") }
        var fields: [String: [UInt8]] = [:]
        var index = 0
        while index < flat.count {
            if let name = flat[index].text, case .bulk(let bytes) = flat[index + 1] { fields[name] = bytes }
            index += 2
        }
        return RedisStreamEntry(id: id, fields: fields)
    }
}
