/// The error vocabulary every service speaks: one code per thing a caller can act on.
public enum ErrorCode: String, Hashable, Sendable, Codable, CaseIterable {
    case invalidArgument = "invalid_argument"
    case unauthenticated
    case permissionDenied = "permission_denied"
    case notFound = "not_found"
    case conflict
    case failedPrecondition = "failed_precondition"
    case resourceExhausted = "resource_exhausted"
    case deadlineExceeded = "deadline_exceeded"
    case unavailable
    case unimplemented
    case `internal`

    /// The HTTP status the gateway answers with for this code.
    public var httpStatus: Int {
        switch self {
        case .invalidArgument: return 400
        case .unauthenticated: return 401
        case .permissionDenied: return 403
        case .notFound: return 404
        case .conflict: return 409
        case .failedPrecondition: return 422
        case .resourceExhausted: return 429
        case .deadlineExceeded: return 504
        case .unavailable: return 503
        case .unimplemented: return 501
        case .internal: return 500
        }
    }
}

/// An error a caller can act on: a code from the shared vocabulary, a message for people, an
/// optional machine-readable `reason` (`idempotency_key_reused`, `version_conflict`) and details
/// (for validation errors, one entry per bad field with what is wrong with it).
public struct OrderlyError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var reason: String?
    public var details: [String: JSONValue]?

    public init(_ code: ErrorCode, _ message: String, reason: String? = nil, details: [String: JSONValue]? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.details = details
    }

    public var description: String { "\(reason ?? code.rawValue): \(message)" }

    /// A validation failure naming every bad field: `["boxes_count": "must be at least 1"]`.
    public static func invalidFields(_ fields: [String: String]) -> OrderlyError {
        let names = fields.keys.sorted().joined(separator: ", ")
        return OrderlyError(
            .invalidArgument, "invalid fields: \(names)", details: fields.mapValues { .string($0) })
    }
}
