import Domain

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
