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
