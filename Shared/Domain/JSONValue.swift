/// Any JSON value, for the open-ended parts of messages (error details, event payloads).
///
/// Numbers keep integers exact (`int`); only a number with a fraction or exponent is a `double`.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text, written directly (several times faster than going
    /// through `JSONEncoder`, which matters where events are stored at stream speed).
    /// Throws for a non-finite double, which JSON cannot express.
    public func jsonText() throws(JSONValueError) -> String {
        var text = ""
        try write(to: &text)
        return text
    }

    private func write(to text: inout String) throws(JSONValueError) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .double(let value):
            guard value.isFinite else { throw JSONValueError.nonFiniteNumber }
            text += "\(value)"
        case .string(let value): Self.write(string: value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                try value.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                Self.write(string: key, to: &text)
                text += ":"
                try value.write(to: &text)
            }
            text += "}"
        }
    }

    private static func write(string: String, to text: inout String) {
        text += quoted(string)
    }

    /// `string` as a JSON string literal, quotes included.
    public static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}

/// Why a `JSONValue` cannot be written as JSON, or text cannot be read as one.
public enum JSONValueError: Error, Hashable, Sendable {
    case nonFiniteNumber
    /// Not JSON from this byte offset on (or nested more than 64 levels deep).
    case invalid(at: Int)
}
