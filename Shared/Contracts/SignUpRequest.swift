public import Domain

/// The body of `POST /v1/auth/register`: a customer's own sign-up.
public struct SignUpRequest: Codable, Sendable, Hashable {
    public var email: String?
    public var password: String?
    public var name: String?
    public var phone: String?
    public var locale: String?

    public init(
        email: String? = nil, password: String? = nil, name: String? = nil, phone: String? = nil,
        locale: String? = nil
    ) {
        self.email = email
        self.password = password
        self.name = name
        self.phone = phone
        self.locale = locale
    }

    /// The checked sign-up, every bad field named at once: the rules of any new user's fields
    /// (`User.newProfile`), the e-mail normalized, the locale the default when absent.
    public func validated() throws(OrderlyError) -> ValidSignUpRequest {
        var problems = FieldProblems()
        let (email, name, phone, password) = User.newProfile(
            email: email, name: name, phone: phone, locale: locale, password: password, &problems)
        try problems.check()
        return ValidSignUpRequest(
            email: email, name: name, phone: phone, password: password, locale: locale ?? User.defaultLocale)
    }
}

/// A sign-up as `SignUpRequest.validated()` found it: the e-mail normalized, the texts trimmed.
public struct ValidSignUpRequest: Sendable, Hashable {
    public var email: String
    public var name: String
    public var phone: String?
    public var password: String
    public var locale: String
}
