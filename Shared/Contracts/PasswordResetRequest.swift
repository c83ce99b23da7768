public import Domain

/// The body of `POST /v1/auth/password-reset`: the address of the account whose password is
/// forgotten.
public struct PasswordResetRequest: Codable, Sendable, Hashable {
    public var email: String?

    public init(email: String? = nil) {
        self.email = email
    }

    /// The e-mail address, checked: required, an address (at most 254 characters), normalized.
    public func validated() throws(OrderlyError) -> String {
        var problems = FieldProblems()
        let email = User.normalizedEmail(problems.text(email, "email", maximumLength: 254))
        if !email.isEmpty, !User.isEmailAddress(email) { problems.add("email", "must be an e-mail address") }
        try problems.check()
        return email
    }
}
