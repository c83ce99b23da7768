public import Domain

/// A reply from Redis.
public enum RedisValue: Hashable, Sendable {
    /// A bulk string: bytes, binary-safe.
    case bulk([UInt8])
    /// A simple status such as `OK`.
    case status(String)
    case integer(Int64)
    case array([RedisValue])
    case null
    /// An error reply (`ERR …`, `BUSYGROUP …`).
    case error(String)

    /// The value as UTF-8 text, for bulk strings and statuses.
    public var text: String? {
        switch self {
        case .bulk(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }

    /// The value as an integer, for integer replies and bulk strings holding one.
    public var integer: Int64? {
        switch self {
        case .integer(let value): return value
        case .bulk: return text.flatMap { Int64($0) }
        default: return nil
        }
    }

    /// The elements of an array reply; empty for `null`.
    public var elements: [RedisValue]? {
        switch self {
        case .array(let values): return values
        case .null: return []
        default: return nil
        }
    }
}

/// One argument of a command, binary-safe.
public struct RedisArgument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init(_ text: String) { self.bytes = Array(text.utf8) }
    public init(_ number: Int) { self.bytes = Array(String(number).utf8) }
    public init(stringLiteral value: String) { self.init(value) }
    public init(integerLiteral value: Int) { self.init(value) }
}

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
