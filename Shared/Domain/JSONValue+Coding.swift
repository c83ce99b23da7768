import Foundation

extension JSONValue {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = RFC3339.encodingStrategy
        return encoder
    }()

    /// The JSON of an encodable value, dates as RFC 3339.
    public init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: try Self.encoder.encode(value))
    }
}

extension OrderlyError {
    /// A write that named a `version` other than the current one: 409 `version_conflict`, with
    /// the current state in `details.current` so the client can merge and retry.
    public static func versionConflict(current: some Encodable) -> OrderlyError {
        OrderlyError(
            .versionConflict, "the resource changed since that version was read",
            details: ["current": (try? JSONValue(encoding: current)) ?? .null])
    }
}
