public import Domain

/// The body of `POST /v1/auth/verify-email`: the token the verification e-mail carried.
public struct EmailVerificationRequest: Codable, Sendable, Hashable {
    public var token: String?

    public init(token: String? = nil) { self.token = token }

    /// The token, required (at most 200 characters), trimmed.
    public func validated() throws(OrderlyError) -> String {
        var problems = FieldProblems()
        let token = problems.text(token, "token", maximumLength: 200)
        try problems.check()
        return token
    }
}
