public import Domain

/// The body of `POST /v1/auth/password-reset/confirm`: the token the e-mail carried and the
/// new password.
public struct PasswordResetConfirmation: Codable, Sendable, Hashable {
    public var token: String?
    public var password: String?

    public init(token: String? = nil, password: String? = nil) {
        self.token = token
        self.password = password
    }

    /// The token and the password, both named when wrong: the token required (at most 200
    /// characters), trimmed; the password 8 to 72 characters, any of them.
    public func validated() throws(OrderlyError) -> (token: String, password: String) {
        var problems = FieldProblems()
        let token = problems.text(token, "token", maximumLength: 200)
        let password = problems.text(password, "password", maximumLength: 1000, allowingInvisible: true)
        if !password.isEmpty, let problem = User.passwordProblem(password) {
            problems.add("password", problem)
        }
        try problems.check()
        return (token, password)
    }
}
