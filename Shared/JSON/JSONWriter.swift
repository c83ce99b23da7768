import Domain
public import Foundation

/// Writes JSON objects field by field; the caller names the fields in sorted order.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private let escapingSlashes: Bool
    private var first = true

    public init(escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
        bytes.reserveCapacity(1024)
    }

    /// Writes `{`, the fields `body` writes, and `}`.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        first = true
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        first = false
    }

    /// Writes `[`, each element, and `]`.
    public mutating func array<Element>(_ elements: [Element], _ write: (inout JSONWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
        first = false
    }

    /// Starts a field: a comma unless it is the object's first, the key and a colon.
    public mutating func key(_ key: StaticString) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func field(_ key: StaticString, _ value: String) {
        self.key(key)
        string(value)
    }

    public mutating func field(_ key: StaticString, _ value: String?) {
        if let value { field(key, value) }
    }

    public mutating func field(_ key: StaticString, _ value: Int64) {
        self.key(key)
        integer(value)
    }

    public mutating func field(_ key: StaticString, _ value: Int64?) {
        if let value { field(key, value) }
    }

    public mutating func field(_ key: StaticString, _ value: Int) {
        field(key, Int64(value))
    }

    public mutating func field(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    public mutating func field(_ key: StaticString, _ value: Bool?) {
        if let value { field(key, value) }
    }

    /// A time as RFC 3339 text (`RFC3339.format`), as the coders write dates.
    public mutating func field(_ key: StaticString, _ value: Date) {
        field(key, RFC3339.format(value))
    }

    public mutating func field(_ key: StaticString, _ value: Date?) {
        if let value { field(key, value) }
    }

    /// A value as Foundation's encoder writes it (keys sorted, RFC 3339 dates, slashes as this
    /// writer's): for what has no hand-written form.
    public mutating func foundation(_ value: some Encodable) {
        let encoder = escapingSlashes ? Self.storedEncoder : Self.wireEncoder
        // Values here are plain data (text, numbers, arrays, objects), which always encode.
        bytes.append(contentsOf: (try? encoder.encode(value)) ?? Data("null".utf8))
        first = false
    }

    private static let storedEncoder = RFC3339.sortedKeysEncoder
    private static let wireEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = RFC3339.encodingStrategy
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A JSON string, escaped as Foundation escapes it.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "/") where escapingSlashes:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        first = false
    }
}
