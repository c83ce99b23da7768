public import Domain

/// The body of `POST /v1/auth/login`.
public struct LoginRequest: Codable, Sendable, Hashable {
    public var email: String?
    public var password: String?

    public init(email: String? = nil, password: String? = nil) {
        self.email = email
        self.password = password
    }

    /// The checked login, both fields named when wrong: the e-mail address required and
    /// normalized (at most 254 characters), the password required (at most 1000; any
    /// character), trimmed.
    public func validated() throws(OrderlyError) -> (email: String, password: String) {
        var problems = FieldProblems()
        let email = User.normalizedEmail(problems.text(email, "email", maximumLength: 254))
        let password = problems.text(password, "password", maximumLength: 1000, allowingInvisible: true)
        try problems.check()
        return (email, password)
    }
}
