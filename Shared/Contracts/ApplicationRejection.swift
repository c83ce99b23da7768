public import Domain

/// The body of `POST /v1/applications/{id}/reject`.
public struct ApplicationRejection: Codable, Sendable, Hashable {
    public var reason: String?

    public init(reason: String? = nil) {
        self.reason = reason
    }

    /// The reason the applicant is told, checked: required, not blank, at most 500 characters;
    /// trimmed.
    public func validated() throws(OrderlyError) -> String {
        var problems = FieldProblems()
        let reason = problems.text(reason, "reason", maximumLength: 500)
        try problems.check()
        return reason
    }
}
