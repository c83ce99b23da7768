public import Domain

/// The body of `POST /v1/users`.
public struct UserDraft: Codable, Sendable, Hashable {
    public var email: String?
    public var name: String?
    public var phone: String?
    public var role: Role?
    public var storeID: StoreID?
    public var staffRole: StaffRole?
    public var password: String?
    public var locale: String?
    public var photoURL: String?

    public init(
        email: String? = nil, name: String? = nil, phone: String? = nil, role: Role? = nil, storeID: StoreID? = nil,
        staffRole: StaffRole? = nil, password: String? = nil, locale: String? = nil, photoURL: String? = nil
    ) {
        self.email = email
        self.name = name
        self.phone = phone
        self.role = role
        self.storeID = storeID
        self.staffRole = staffRole
        self.password = password
        self.locale = locale
        self.photoURL = photoURL
    }

    enum CodingKeys: String, CodingKey {
        case email, name, phone, role, password, locale
        case storeID = "store_id"
        case staffRole = "staff_role"
        case photoURL = "photo_url"
    }

    /// The checked draft, every bad field named at once: the rules of any new user's fields
    /// (`User.newProfile`), `photo_url` an http or https address, a `role`, and `store_id`
    /// given for a store role and absent for the others. Without a role, the fields checked
    /// so far and `role` are named. Who may create the role in which store is the caller's to
    /// check. A staff member's staff role is `other` when absent, anyone else's none.
    ///
    /// A staff member may have neither `email` nor `password`: a profile for the store's tills,
    /// signed in with a PIN alone (`PUT /v1/users/{id}/pin`). Anyone else needs both, and
    /// neither comes without the other.
    public func validated() throws(OrderlyError) -> ValidUserDraft {
        var problems = FieldProblems()
        let pinOnly = role == .staff && Self.isBlank(email) && Self.isBlank(password)
        let (email, name, phone, password) = User.newProfile(
            email: email, name: name, phone: phone, locale: locale, password: password, credentials: !pinOnly,
            &problems)
        let photo = problems.webAddress(photoURL, "photo_url")
        guard let role else {
            problems.add("role", "is required")
            throw OrderlyError.invalidFields(problems.reasons)
        }
        // Whoever creates them: store roles name their store, the others none.
        if role.isStoreRole, storeID == nil { problems.add("store_id", "is required for the role \(role.rawValue)") }
        if !role.isStoreRole, storeID != nil {
            problems.add("store_id", "must be absent for the role \(role.rawValue)")
        }
        try problems.check()
        return ValidUserDraft(
            email: pinOnly ? nil : email, name: name, phone: phone, role: role, storeID: storeID,
            staffRole: role == .staff ? (staffRole ?? .other) : nil, password: pinOnly ? nil : password,
            locale: locale ?? User.defaultLocale, photoURL: photo)
    }

    private static func isBlank(_ text: String?) -> Bool {
        text?.allSatisfy(\.isWhitespace) ?? true
    }
}

/// A new user as `UserDraft.validated()` found it: the e-mail normalized, the texts trimmed,
/// the store as the draft named it; neither e-mail nor password for a staff member's profile
/// for the tills alone.
public struct ValidUserDraft: Sendable, Hashable {
    public var email: String?
    public var name: String
    public var phone: String?
    public var role: Role
    public var storeID: StoreID?
    public var staffRole: StaffRole?
    public var password: String?
    public var locale: String
    public var photoURL: String?
}
