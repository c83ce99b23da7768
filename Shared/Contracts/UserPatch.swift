public import Domain

/// The body of `PATCH /v1/users/{id}`.
public struct UserPatch: Codable, Sendable, Hashable {
    public var name: String?
    public var phone: String?
    public var role: Role?
    public var staffRole: StaffRole?
    public var active: Bool?
    public var locale: String?
    /// An IANA time zone; blank removes it (UTC).
    public var timeZone: String?
    /// Blank removes it.
    public var photoURL: String?
    public var password: String?
    /// Required with `password` when users change their own.
    public var currentPassword: String?
    public var expectedVersion: Int64?

    public init(
        name: String? = nil, phone: String? = nil, role: Role? = nil, staffRole: StaffRole? = nil,
        active: Bool? = nil, locale: String? = nil, photoURL: String? = nil, password: String? = nil,
        currentPassword: String? = nil, expectedVersion: Int64? = nil, timeZone: String? = nil
    ) {
        self.timeZone = timeZone
        self.name = name
        self.phone = phone
        self.role = role
        self.staffRole = staffRole
        self.active = active
        self.locale = locale
        self.photoURL = photoURL
        self.password = password
        self.currentPassword = currentPassword
        self.expectedVersion = expectedVersion
    }

    enum CodingKeys: String, CodingKey {
        case name, phone, role, active, password, locale
        case currentPassword = "current_password"
        case staffRole = "staff_role"
        case photoURL = "photo_url"
        case timeZone = "tz"
        case expectedVersion = "expected_version"
    }

    /// The checked changes, every bad field named at once: a name not blank, a phone and a
    /// photo address (an http or https one) of their limits, a BCP 47 locale, a password of 8
    /// to 72 characters and, when `ownAccount` (the caller changes their own password), the
    /// current one with it. Who may change what is the caller's to check.
    public func validated(ownAccount: Bool) throws(OrderlyError) -> ValidUserPatch {
        var problems = FieldProblems()
        let name = self.name.map { problems.text($0, "name") }
        let phone = self.phone.map { problems.optionalText($0, "phone", maximumLength: 32) }
        let photo = photoURL.map { problems.webAddress($0, "photo_url") }
        if let locale { problems.locale(locale) }
        let zone = timeZone.map { problems.optionalText($0, "tz", maximumLength: 64) }
        if case .some(.some(let name)) = zone, !Store.isKnownTimeZone(name) {
            problems.add("tz", "must be an IANA time zone such as Asia/Jerusalem")
        }
        if let password, let problem = User.passwordProblem(password) {
            problems.add("password", problem)
        }
        if password != nil, ownAccount, (currentPassword ?? "").isEmpty {
            problems.add("current_password", "is required to change your own password")
        }
        try problems.check()
        return ValidUserPatch(
            name: name, phone: phone, role: role, staffRole: staffRole, active: active, locale: locale,
            photoURL: photo, password: password, currentPassword: currentPassword, timeZone: zone)
    }
}

/// A user's changes as `UserPatch.validated(ownAccount:)` found them: nil is unchanged; for
/// `phone` and `photoURL`, a nil inside clears it.
public struct ValidUserPatch: Sendable, Hashable {
    public var name: String?
    public var phone: String??
    public var role: Role?
    public var staffRole: StaffRole?
    public var active: Bool?
    public var locale: String?
    public var photoURL: String??
    public var password: String?
    public var currentPassword: String?
    public var timeZone: String??

    /// `user` with these changes made.
    public func applied(to user: User) -> User {
        var user = user
        if let role { user.role = role }
        if let name { user.name = name }
        if let phone { user.phone = phone }
        if let photoURL { user.photoURL = photoURL }
        if let locale { user.locale = locale }
        if let timeZone { user.timeZone = timeZone }
        if let staffRole { user.staffRole = staffRole }
        if let active { user.active = active }
        return user
    }
}
