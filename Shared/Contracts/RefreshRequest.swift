public import Domain

/// The body of `POST /v1/auth/refresh` and `/v1/auth/logout`.
public struct RefreshRequest: Codable, Sendable, Hashable {
    public var refreshToken: String?

    public init(refreshToken: String? = nil) {
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }

    /// The refresh token, checked: required, not blank, at most 200 characters; trimmed.
    public func validated() throws(OrderlyError) -> String {
        var problems = FieldProblems()
        let token = problems.text(refreshToken, "refresh_token", maximumLength: 200)
        try problems.check()
        return token
    }
}
