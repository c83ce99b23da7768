import NIOPosix
import Synchronization

/// Where Redis is and how to talk to it.
public struct RedisConfiguration: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// An ACL user (`AUTH username password`); nil with a password alone is the `default` user.
    public var username: String?
    /// Sent with `AUTH` on every new connection; never printed.
    public var password: String?
    /// The logical database (`SELECT`); 0 by default.
    public var database: Int
    /// Connections (and threads) for commands.
    public var poolSize: Int
    public var connectTimeout: Duration
    /// How long one command may take, `BLOCK` time included.
    public var commandTimeout: Duration
    /// For Redis Cluster, nodes to read the slot map from (`host` and `port` are the first);
    /// empty for one Redis.
    public var clusterSeeds: [RedisClusterClient.Node]
    /// How many streams each service's events are spread over, by store (`eventStreams(of:shards:)`),
    /// and wake-ups over as many sharded channels: 1 keeps a stream and a channel each. Every
    /// process of a deployment must be given the same number.
    public var streamShards: Int

    public init(
        host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil,
        database: Int = 0, poolSize: Int = 4, connectTimeout: Duration = .seconds(1),
        commandTimeout: Duration = .seconds(10), clusterSeeds: [RedisClusterClient.Node] = [], streamShards: Int = 1
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.poolSize = max(1, poolSize)
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.clusterSeeds = clusterSeeds
        self.streamShards = max(1, streamShards)
    }

    /// Whether this is a Redis Cluster.
    public var isCluster: Bool { !clusterSeeds.isEmpty }

    /// Parses `redis://[[username]:password@]host:port[/database]`, or for Redis Cluster
    /// `redis-cluster://[[username]:password@]host:port[,host:port…]` (any of its nodes), the
    /// user and password percent-encoded; `nil` when it is not of either form.
    public init?(url: String) {
        let cluster = url.hasPrefix("redis-cluster://")
        guard url.hasPrefix("redis://") || cluster else { return nil }
        var rest = Substring(url.dropFirst(cluster ? "redis-cluster://".count : "redis://".count))
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard user.count == 2, let name = user[0].removingPercentEncoding,
                let secret = user[1].removingPercentEncoding, !secret.isEmpty
            else { return nil }
            username = name.isEmpty ? nil : name
            password = secret
        }
        if cluster {
            var seeds: [RedisClusterClient.Node] = []
            for address in rest.split(separator: ",", omittingEmptySubsequences: false) {
                guard let node = Self.node(address) else { return nil }
                seeds.append(node)
            }
            self.init(host: seeds[0].host, port: seeds[0].port, username: username, password: password)
            clusterSeeds = seeds
            return
        }
        let path = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        var database = 0
        if path.count == 2, !path[1].isEmpty {
            guard let number = Int(path[1]), number >= 0 else { return nil }
            database = number
        }
        guard let node = Self.node(path[0]) else { return nil }
        self.init(host: node.host, port: node.port, username: username, password: password, database: database)
    }

    /// `host:port`.
    private static func node(_ address: Substring) -> RedisClusterClient.Node? {
        let parts = address.split(separator: ":")
        guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
            return nil
        }
        return RedisClusterClient.Node(host: String(parts[0]), port: port)
    }

    /// The address and database, without credentials: what logs may show.
    public var description: String {
        let credentials = password == nil ? "" : "\(username ?? ""):***@"
        if isCluster {
            return "redis-cluster://\(credentials)\(clusterSeeds.map(\.description).joined(separator: ","))"
        }
        return "redis://\(credentials)\(host):\(port)/\(database)"
    }
}

/// A pool of Redis connections. hiredis blocks, so every command runs on a thread of this
/// client's own pool, never on an event loop or the Swift cooperative pool. A broken connection
/// is dropped and the next command opens a new one, so a Redis restart is survived; while Redis
/// is down, commands fail at once with `RedisError.unavailable`.
///
/// Given a Redis Cluster (`RedisConfiguration.clusterSeeds`), each command goes to the master
/// of its key's slot through a `RedisClusterClient`, which keeps a pool like this one per
/// master; the commands of one pipeline must then share a slot (hash tags), as a cluster
/// requires.
public final class RedisClient: Sendable {
    public let configuration: RedisConfiguration
    /// Nil for a cluster, whose nodes' clients have their own.
    private let threads: NIOThreadPool?
    let cluster: RedisClusterClient?
    private let idle = Mutex<[RedisConnection]>([])

    public init(configuration: RedisConfiguration) {
        self.configuration = configuration
        if configuration.isCluster {
            var node = configuration
            node.clusterSeeds = []
            cluster = RedisClusterClient(seeds: configuration.clusterSeeds, configuration: node)
            threads = nil
        } else {
            cluster = nil
            let threads = NIOThreadPool(numberOfThreads: configuration.poolSize)
            threads.start()
            self.threads = threads
        }
    }

    /// Runs one command. An error reply is thrown as `RedisError.server`.
    @discardableResult
    public func send(_ arguments: RedisArgument...) async throws -> RedisValue {
        try await send(arguments)
    }

    /// Runs one command. An error reply is thrown as `RedisError.server`.
    @discardableResult
    public func send(_ arguments: [RedisArgument]) async throws -> RedisValue {
        let reply = try await pipeline([arguments])[0]
        if case .error(let message) = reply { throw RedisError.server(message) }
        return reply
    }

    /// Sends all commands in one round trip and returns every reply, error replies included.
    ///
    /// A connection taken from the pool may have been closed by the server while it sat idle
    /// (Redis restarted): when a pooled connection fails because the server had closed it, the
    /// commands never ran and are sent once more on a new connection. Any other failure (a
    /// timeout, a reset mid-reply) may come after Redis ran them, and is thrown.
    public func pipeline(_ commands: [[RedisArgument]]) async throws -> [RedisValue] {
        guard !commands.isEmpty else { return [] }
        guard let threads else {
            return try await cluster!.pipeline(slot: Self.key(of: commands).map(RedisClusterClient.slot(of:)), commands)
        }
        return try await threads.runIfActive { () throws(RedisError) -> [RedisValue] in
            if let pooled = self.idle.withLock({ $0.popLast() }) {
                do throws(RedisError) {
                    return try self.run(commands, on: pooled)
                } catch {
                    guard pooled.closedByServer else { throw error }
                }
            }
            return try self.run(commands, on: self.connect())
        }
    }

    private func run(_ commands: [[RedisArgument]], on connection: RedisConnection) throws(RedisError) -> [RedisValue] {
        do throws(RedisError) {
            let replies = try connection.pipeline(commands)
            checkIn(connection)
            return replies
        } catch {
            connection.close()
            throw error
        }
    }

    /// Closes every connection and stops the threads.
    public func shutdown() async {
        let connections = idle.withLock { connections in
            defer { connections = [] }
            return connections
        }
        for connection in connections { connection.close() }
        try? await threads?.shutdownGracefully()
        await cluster?.shutdown()
    }

    /// The key a cluster routes `commands` by: the first key of the first command that has
    /// one (after `MULTI`); nil for commands without keys (`PING`, `SCAN`, `CLUSTER`).
    static func key(of commands: [[RedisArgument]]) -> [UInt8]? {
        for command in commands {
            guard let name = command.first.map({ String(decoding: $0.bytes, as: UTF8.self).uppercased() }) else {
                continue
            }
            switch name {
            case "MULTI", "EXEC", "DISCARD", "ASKING", "PING", "INFO", "CLUSTER", "SCAN", "DBSIZE", "CONFIG", "TIME":
                continue
            case "EVAL", "EVALSHA", "FCALL":
                guard command.count > 3, String(decoding: command[2].bytes, as: UTF8.self) != "0" else { continue }
                return command[3].bytes
            case "XREAD", "XREADGROUP":
                guard let streams = command.firstIndex(where: { $0.bytes.uppercasedASCII == Array("STREAMS".utf8) }),
                    streams + 1 < command.count
                else { continue }
                return command[streams + 1].bytes
            case "XINFO", "XGROUP", "OBJECT", "MEMORY":
                if command.count > 2 { return command[2].bytes }
            default:
                if command.count > 1 { return command[1].bytes }
            }
        }
        return nil
    }

    private func connect() throws(RedisError) -> RedisConnection {
        try RedisConnection(configuration, readTimeout: configuration.commandTimeout)
    }

    private func checkIn(_ connection: RedisConnection) {
        guard !connection.isBroken else {
            connection.close()
            return
        }
        idle.withLock { $0.append(connection) }
    }
}

extension [UInt8] {
    fileprivate var uppercasedASCII: [UInt8] {
        map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 32 : $0 }
    }
}
