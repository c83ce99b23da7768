public import Foundation

extension JSONValue {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = RFC3339.encodingStrategy
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.decodingStrategy
        return decoder
    }()

    /// The JSON of an encodable value (an event's payload), dates as RFC 3339. The encoder's
    /// output is read by `init(parsing:)`, several times faster than a `JSONDecoder` building a
    /// `JSONValue` through the `Decodable` machinery.
    public init(encoding value: some Encodable) throws {
        self = try JSONValue(parsing: try Self.encoder.encode(value))
    }

    /// This JSON read as a `Value`; a mismatch is a `DecodingError` naming the field.
    public func decode<Value: Decodable>(as type: Value.Type) throws -> Value {
        try Self.decoder.decode(type, from: Data(try jsonText().utf8))
    }
}

extension OrderlyError {
    /// A write that named a `version` other than the current one: 409 `version_conflict`, with
    /// the current state in `details.current` so the client can merge and retry.
    public static func versionConflict(current: some Encodable) -> OrderlyError {
        OrderlyError(
            .conflict, "the resource changed since that version was read", reason: "version_conflict",
            details: ["current": (try? JSONValue(encoding: current)) ?? .null])
    }
}
