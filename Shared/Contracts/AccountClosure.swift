public import Domain

/// The body of `DELETE /v1/me`: the caller's password, as a second thought before their account
/// is closed.
public struct AccountClosure: Codable, Sendable, Hashable {
    public var password: String?

    public init(password: String? = nil) { self.password = password }

    /// The password, required.
    public func validated() throws(OrderlyError) -> String {
        var problems = FieldProblems()
        let password = problems.text(password, "password", maximumLength: 1000, allowingInvisible: true)
        try problems.check()
        return password
    }
}
