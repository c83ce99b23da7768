extension JSONValue {
    /// Parses JSON text (RFC 8259) directly, without `JSONDecoder`'s trial and error over the
    /// possible types, which matters where events are read at stream speed. Nesting is limited
    /// to 64 levels; the error says at which byte the text stops being JSON.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONValueError) {
        var parser = Parser(bytes: Array(bytes))
        parser.skipWhitespace()
        self = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw .invalid(at: parser.index) }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(JSONValueError) -> JSONValue {
            guard depth < 64, index < bytes.count else { throw .invalid(at: index) }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func literal(_ word: String, _ value: JSONValue) throws(JSONValueError) -> JSONValue {
            let expected = Array(word.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw .invalid(at: index)
            }
            index += expected.count
            return value
        }

        mutating func object(depth: Int) throws(JSONValueError) -> JSONValue {
            index += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw .invalid(at: index) }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw .invalid(at: index) }
                index += 1
                skipWhitespace()
                members[key] = try value(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw .invalid(at: index) }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw .invalid(at: index)
                }
            }
        }

        mutating func array(depth: Int) throws(JSONValueError) -> JSONValue {
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw .invalid(at: index) }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw .invalid(at: index)
                }
            }
        }

        mutating func string() throws(JSONValueError) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var start = index
            var plain: [UInt8] = []
            func flush() {
                if start < index { plain.append(contentsOf: bytes[start..<index]) }
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flush()
                    index += 1
                    guard scalars.isEmpty else {
                        // Escapes were seen: `plain` holds only what followed the last one.
                        scalars.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
                        return String(scalars)
                    }
                    return String(decoding: plain, as: UTF8.self)
                }
                if byte < 0x20 { throw .invalid(at: index) }
                if byte == UInt8(ascii: "\\") {
                    flush()
                    scalars.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
                    plain = []
                    index += 1
                    guard index < bytes.count else { throw .invalid(at: index) }
                    switch bytes[index] {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code) {
                            // A surrogate pair: the second half must follow, as \u and four hex digits.
                            guard index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"),
                                bytes[index + 2] == UInt8(ascii: "u")
                            else { throw .invalid(at: index) }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw .invalid(at: index) }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw .invalid(at: index) }
                        scalars.append(scalar)
                    default: throw .invalid(at: index)
                    }
                    index += 1
                    start = index
                    continue
                }
                index += 1
            }
            throw .invalid(at: index)
        }

        /// Reads the 4 hex digits after `\u`, leaving `index` on the last.
        mutating func hex4() throws(JSONValueError) -> UInt32 {
            guard index + 4 < bytes.count else { throw .invalid(at: index) }
            var code: UInt32 = 0
            for offset in 1...4 {
                let byte = bytes[index + offset]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw .invalid(at: index + offset)
                }
                code = code << 4 | UInt32(digit)
            }
            index += 4
            return code
        }

        mutating func number() throws(JSONValueError) -> JSONValue {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            var integral = true
            var digits = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"): integral = false
                case UInt8(ascii: "-") where !integral: break
                default:
                    return try finishNumber(start: start, integral: integral, digits: digits)
                }
                index += 1
            }
            return try finishNumber(start: start, integral: integral, digits: digits)
        }

        func finishNumber(start: Int, integral: Bool, digits: Int) throws(JSONValueError) -> JSONValue {
            guard digits > 0 else { throw .invalid(at: start) }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if integral, let value = Int64(text) { return .int(value) }
            guard let value = Double(text), value.isFinite else { throw .invalid(at: start) }
            return .double(value)
        }
    }
}
