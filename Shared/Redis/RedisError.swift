public import Domain

/// Why a Redis call failed.
public enum RedisError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Redis cannot be reached (or the connection broke): try again later.
    case unavailable(String)
    /// Redis answered with an error reply.
    case server(String)
    /// The reply did not have the shape the command promises.
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .unavailable(let why): return "redis unavailable: \(why)"
        case .server(let message): return "redis error: \(message)"
        case .unexpectedReply(let what): return "unexpected redis reply: \(what)"
        }
    }
}

extension RedisError: TransientFailure {
    /// Redis unreachable, or answering that it cannot serve yet: loading its files (`LOADING`),
    /// a cluster whose slots are not all served (`CLUSTERDOWN`, as after a master restarted),
    /// a slot in the middle of moving (`TRYAGAIN`), a replica without its master (`MASTERDOWN`).
    public var isTransient: Bool {
        switch self {
        case .unavailable: return true
        case .server(let message):
            return ["LOADING", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN"].contains { message.hasPrefix($0 + " ") }
        case .unexpectedReply: return false
        }
    }
}
