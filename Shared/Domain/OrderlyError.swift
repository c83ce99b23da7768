/// An error a caller can act on: a code from the shared vocabulary, a message for people, an
/// optional machine-readable `reason` that refines the code (`ErrorReason`: `.versionConflict`)
/// and details (for validation errors, one entry per bad field with what is wrong with it).
public struct OrderlyError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var reason: ErrorReason?
    public var details: [String: JSONValue]?

    public init(
        _ code: ErrorCode, _ message: String, reason: ErrorReason? = nil, details: [String: JSONValue]? = nil
    ) {
        self.code = code
        self.message = message
        self.reason = reason
        self.details = details
    }

    /// An error for `reason`, with the code it refines.
    public init(_ reason: ErrorReason, _ message: String, details: [String: JSONValue]? = nil) {
        self.init(reason.code ?? .internal, message, reason: reason, details: details)
    }

    public var description: String { "\(reason?.rawValue ?? code.rawValue): \(message)" }

    /// A validation failure naming every bad field: `["boxes_count": "must be at least 1"]`.
    public static func invalidFields(_ fields: [String: String]) -> OrderlyError {
        let names = fields.keys.sorted().joined(separator: ", ")
        return OrderlyError(
            .invalidArgument, "invalid fields: \(names)", details: fields.mapValues { .string($0) })
    }
}
