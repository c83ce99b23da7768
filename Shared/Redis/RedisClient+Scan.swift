extension RedisClient {
    /// The keys matching `pattern` (and holding a `type`, when given), sorted: `SCAN` a thousand
    /// at a time, each key once however often the walk returns it.
    /// On a cluster, every master is walked.
    public func keys(matching pattern: String, type: String? = nil) async throws -> [String] {
        guard let cluster else { return try await scan(pattern, type: type).sorted() }
        var keys: Set<String> = []
        for node in try await cluster.masters() {
            keys.formUnion(try await cluster.client(for: node).scan(pattern, type: type))
        }
        return keys.sorted()
    }

    private func scan(_ pattern: String, type: String?) async throws -> Set<String> {
        var cursor = "0"
        var keys: Set<String> = []
        repeat {
            var command: [RedisArgument] = [
                "SCAN", RedisArgument(cursor), "MATCH", RedisArgument(pattern), "COUNT", 1000,
            ]
            if let type { command += ["TYPE", RedisArgument(type)] }
            let reply = try await send(command)
            guard let parts = reply.elements, parts.count == 2, let next = parts[0].text else {
                throw RedisError.unexpectedReply("SCAN: \(reply)")
            }
            cursor = next
            keys.formUnion((parts[1].elements ?? []).compactMap(\.text))
        } while cursor != "0"
        return keys
    }
}
