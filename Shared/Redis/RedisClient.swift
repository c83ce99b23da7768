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

    public init(
        host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil,
        database: Int = 0, poolSize: Int = 4, connectTimeout: Duration = .seconds(1),
        commandTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.poolSize = max(1, poolSize)
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
    }

    /// Parses `redis://[[username]:password@]host:port[/database]`, the user and password
    /// percent-encoded; `nil` when it is not of that form.
    public init?(url: String) {
        guard url.hasPrefix("redis://") else { return nil }
        var rest = Substring(url.dropFirst("redis://".count))
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
        let path = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        var database = 0
        if path.count == 2, !path[1].isEmpty {
            guard let number = Int(path[1]), number >= 0 else { return nil }
            database = number
        }
        let parts = path[0].split(separator: ":")
        guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
            return nil
        }
        self.init(host: String(parts[0]), port: port, username: username, password: password, database: database)
    }

    /// The address and database, without credentials: what logs may show.
    public var description: String {
        "redis://\(password == nil ? "" : "\(username ?? ""):***@")\(host):\(port)/\(database)"
    }
}

/// A pool of Redis connections. hiredis blocks, so every command runs on a thread of this
/// client's own pool, never on an event loop or the Swift cooperative pool. A broken connection
/// is dropped and the next command opens a new one, so a Redis restart is survived; while Redis
/// is down, commands fail at once with `RedisError.unavailable`.
public final class RedisClient: Sendable {
    public let configuration: RedisConfiguration
    private let threads: NIOThreadPool
    private let idle = Mutex<[RedisConnection]>([])

    public init(configuration: RedisConfiguration) {
        self.configuration = configuration
        self.threads = NIOThreadPool(numberOfThreads: configuration.poolSize)
        threads.start()
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
        try? await threads.shutdownGracefully()
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
