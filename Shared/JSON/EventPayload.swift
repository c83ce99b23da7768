import Domain
import Foundation

/// An event's payload as JSON text.
///
/// The service that raises an event encodes its payload once; the text then travels unchanged
/// through the outbox and the stream to each consumer, which decodes it into what it needs.
/// Text from outside the process (a stream entry) is checked to be JSON when it comes in.
public struct EventPayload: Hashable, Sendable, CustomStringConvertible {
    /// The payload's JSON.
    public let json: String

    /// The JSON of an encodable value: dates as RFC 3339, keys sorted.
    public init(encoding value: some Encodable) throws {
        self.json = String(decoding: try RFC3339.sortedKeysEncoder.encode(value), as: UTF8.self)
    }

    /// Text that is JSON because this process's own encoder wrote it (a row of its own outbox):
    /// taken as it is.
    public init(encodedJSON json: String) {
        self.json = json
    }

    /// Text read from elsewhere, checked to be one JSON value (nested at most 64 levels).
    public init(validating bytes: [UInt8]) throws(JSONScanner.Failure) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(JSONScanner.Failure) in try JSONScanner.validate(raw) }
        }.get()
        self.json = String(decoding: bytes, as: UTF8.self)
    }

    public static let null = EventPayload(encodedJSON: "null")

    /// Whether the text holds `text` anywhere, byte for byte: how a follower that applies few
    /// of a type's events passes over the others without decoding them (a key's presence, never
    /// a value's meaning).
    public func mentions(_ text: String) -> Bool {
        var (json, text) = (json, text)
        return json.withUTF8 { haystack in
            text.withUTF8 { needle in
                guard let first = needle.first else { return true }
                // Each place the first byte is (memchr), compared whole from there (memcmp).
                var start = 0
                while haystack.count - start >= needle.count {
                    guard
                        let found = memchr(haystack.baseAddress! + start, Int32(first), haystack.count - start)
                    else { return false }
                    let at = UnsafeRawPointer(found) - UnsafeRawPointer(haystack.baseAddress!)
                    guard haystack.count - at >= needle.count else { return false }
                    if memcmp(found, needle.baseAddress!, needle.count) == 0 { return true }
                    start = at + 1
                }
                return false
            }
        }
    }

    /// The payload read as a `Value`; a mismatch is a `DecodingError` naming the field.
    public func decode<Value: Decodable>(as type: Value.Type) throws -> Value {
        try RFC3339.decoder.decode(type, from: Data(json.utf8))
    }

    public var description: String { json }
}
