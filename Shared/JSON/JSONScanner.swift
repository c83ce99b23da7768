/// A small JSON reader for a few flat fields, and a checker for JSON passed along as text.
///
/// Foundation's decoders cannot hand back a nested value as raw bytes, yet a Wire envelope's
/// `body` must reach its handler undecoded (so it is parsed exactly once, into the handler's own
/// type), and an event's payload travels from the outbox through a stream to its consumers as
/// text. This scanner reads the envelope's fields, validates the syntax of everything it skips
/// (with a nesting limit) without building anything, and reports where a value starts and ends.
/// It never traps on input: every read is bounds-checked and errors are thrown.
public struct JSONScanner {
    private let bytes: UnsafeRawBufferPointer
    /// The offset of the next unread byte.
    public private(set) var offset: Int
    private static let maximumDepth = 64

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.offset = 0
    }

    public enum Failure: Error, Sendable {
        case syntax(String, at: Int)
    }

    private func fail(_ what: String) -> Failure { .syntax(what, at: offset) }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    public mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): offset += 1
            default: return
            }
        }
    }

    public mutating func expect(_ byte: UInt8) throws(Failure) {
        skipWhitespace()
        guard current == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
        offset += 1
    }

    /// Consumes `byte` if it comes next (after white space).
    public mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard current == byte else { return false }
        offset += 1
        return true
    }

    public mutating func expectEnd() throws(Failure) {
        skipWhitespace()
        guard offset == bytes.count else { throw fail("unexpected data after the value") }
    }

    /// Calls `field` for each key of an object; `field` must consume the key's value.
    public mutating func readObject(_ field: (inout JSONScanner, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if consume(UInt8(ascii: "}")) { return }
        repeat {
            skipWhitespace()
            let key = try readString()
            try expect(UInt8(ascii: ":"))
            try field(&self, key)
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Whether the next value is `null` (consumed if so).
    public mutating func consumeNull() -> Bool {
        skipWhitespace()
        guard offset + 4 <= bytes.count, bytes[offset] == UInt8(ascii: "n"), bytes[offset + 1] == UInt8(ascii: "u"),
            bytes[offset + 2] == UInt8(ascii: "l"), bytes[offset + 3] == UInt8(ascii: "l")
        else { return false }
        offset += 4
        return true
    }

    /// Reads `true` or `false`.
    public mutating func readBool() throws(Failure) -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "t"):
            try skipLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try skipLiteral("false")
            return false
        default: throw fail("expected true or false")
        }
    }

    /// Reads a string value, resolving escapes.
    public mutating func readString() throws(Failure) -> String {
        skipWhitespace()
        guard current == UInt8(ascii: "\"") else { throw fail("expected a string") }
        offset += 1
        let start = offset
        var hasEscapes = false
        while true {
            guard let byte = current else { throw fail("unterminated string") }
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw fail("control character in string") }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                offset += 2
            } else {
                offset += 1
            }
        }
        let end = offset
        offset += 1
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        guard hasEscapes else { return String(decoding: raw, as: UTF8.self) }
        return try Self.unescape(raw, at: start)
    }

    private static func unescape(_ raw: UnsafeRawBufferPointer, at position: Int) throws(Failure) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        func hex(_ at: Int) throws(Failure) -> UInt32 {
            guard at + 4 <= raw.count else { throw .syntax("truncated \\u escape", at: position + at) }
            var value: UInt32 = 0
            for byte in raw[at..<at + 4] {
                guard let digit = hexValue(byte) else { throw .syntax("bad \\u escape", at: position + at) }
                value = value << 4 | digit
            }
            return value
        }
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < raw.count else { throw .syntax("truncated escape", at: position + index) }
            let escaped = raw[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex(index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar), index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"),
                    raw[index + 1] == UInt8(ascii: "u")
                {
                    let low = try hex(index + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                guard let character = Unicode.Scalar(scalar) else {
                    throw .syntax("a surrogate without its pair", at: position + index - 6)
                }
                output.append(contentsOf: String(character).utf8)
            default:
                throw .syntax("bad escape", at: position + index - 1)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Reads an integer value (no fraction, no exponent).
    public mutating func readInteger() throws(Failure) -> Int64 {
        skipWhitespace()
        let negative = current == UInt8(ascii: "-")
        if negative { offset += 1 }
        let start = offset
        var value: Int64 = 0
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw fail("integer out of range") }
            value = sum
            offset += 1
        }
        guard offset > start else { throw fail("expected an integer") }
        guard offset - start == 1 || bytes[start] != UInt8(ascii: "0") else {
            throw fail("an integer with a leading zero")
        }
        if let byte = current, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            throw fail("expected an integer")
        }
        return negative ? -value : value
    }

    /// Checks that `bytes` hold exactly one JSON value (white space around it allowed).
    public static func validate(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        var scanner = JSONScanner(bytes)
        _ = try scanner.skipValue()
        try scanner.expectEnd()
    }

    /// Skips one value of any kind, checking its syntax; returns the byte range it occupied.
    public mutating func skipValue() throws(Failure) -> Range<Int> {
        skipWhitespace()
        let start = offset
        try skipValue(depth: 0)
        return start..<offset
    }

    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        guard let byte = current else { throw fail("expected a value") }
        switch byte {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"):
            offset += 1
            if consume(UInt8(ascii: "}")) { return }
            repeat {
                skipWhitespace()
                try skipString()
                try expect(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            offset += 1
            if consume(UInt8(ascii: "]")) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        case UInt8(ascii: "t"): try skipLiteral("true")
        case UInt8(ascii: "f"): try skipLiteral("false")
        case UInt8(ascii: "n"): try skipLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        default:
            throw fail("expected a value")
        }
    }

    /// Skips a string, checking its escapes, without making a `String` of it.
    private mutating func skipString() throws(Failure) {
        guard current == UInt8(ascii: "\"") else { throw fail("expected a string") }
        offset += 1
        let start = offset
        var isASCII = true
        while true {
            guard let byte = current else { throw fail("unterminated string") }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                if !isASCII { try checkUTF8(start..<offset - 1) }
                return
            case 0x80...: isASCII = false
            case ..<0x20: throw fail("control character in string")
            case UInt8(ascii: "\\"):
                guard let escaped = current else { throw fail("unterminated string") }
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    // Surrogates only in pairs, high then low, as Foundation wants them.
                    switch try skipHexEscape() {
                    case 0xD800...0xDBFF:
                        guard current == UInt8(ascii: "\\"), offset + 1 < bytes.count,
                            bytes[offset + 1] == UInt8(ascii: "u")
                        else { throw fail("a high surrogate without its low one") }
                        offset += 2
                        guard (0xDC00...0xDFFF).contains(try skipHexEscape()) else {
                            throw fail("a high surrogate without its low one")
                        }
                    case 0xDC00...0xDFFF: throw fail("a low surrogate without its high one")
                    default: break
                    }
                default: throw fail("bad escape")
                }
            default: break
            }
        }
    }

    /// Skips the four hex digits of a `\\u` escape; returns their value.
    private mutating func skipHexEscape() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = current.flatMap(Self.hexValue) else { throw fail("bad \\u escape") }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    /// JSON is UTF-8 (RFC 8259 §8.1): a string with bytes that are not is refused, as
    /// Foundation refuses it.
    private func checkUTF8(_ range: Range<Int>) throws(Failure) {
        var bytes = UnsafeRawBufferPointer(rebasing: self.bytes[range]).makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&bytes) {
            case .scalarValue: continue
            case .emptyInput: return
            case .error: throw .syntax("a string that is not UTF-8", at: range.lowerBound)
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func skipLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw fail("bad literal") }
        for index in 0..<count where bytes[offset + index] != literal.utf8Start[index] {
            throw fail("bad literal")
        }
        offset += count
    }

    private mutating func skipNumber() throws(Failure) {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        var digits = 0
        func isDigit(_ byte: UInt8?) -> Bool {
            byte.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false
        }
        let first = current
        while isDigit(current) { offset += 1; digits += 1 }
        guard digits > 0 else { throw fail("bad number") }
        guard digits == 1 || first != UInt8(ascii: "0") else { throw fail("a number with a leading zero") }
        if current == UInt8(ascii: ".") {
            offset += 1
            guard isDigit(current) else { throw fail("bad number") }
            while isDigit(current) { offset += 1 }
        }
        var large = digits > 15
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard isDigit(current) else { throw fail("bad number") }
            while isDigit(current) { offset += 1 }
            large = true
        }
        // Foundation refuses a number beyond a Double's range; so does this scanner, which reads
        // the rare long or exponent-bearing number as a Double to tell.
        if large,
            !(Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self))
                ?? .infinity).isFinite
        {
            throw .syntax("a number out of range", at: start)
        }
    }
}
