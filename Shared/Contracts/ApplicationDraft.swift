public import Domain

/// The body of `POST /v1/applications`.
public struct ApplicationDraft: Codable, Sendable, Hashable {
    public var kind: JoinApplication.Kind?
    public var name: String?
    public var email: String?
    public var password: String?
    public var phone: String?
    public var locale: String?
    public var store: StoreFields?
    public var vehicle: String?

    /// The store a restaurant applies to open, as the applicant sends it.
    public struct StoreFields: Codable, Sendable, Hashable {
        public var name: String?
        public var address: String?
        public var phone: String?
        public var cuisine: String?
        public var timezone: String?

        public init(
            name: String? = nil, address: String? = nil, phone: String? = nil, cuisine: String? = nil,
            timezone: String? = nil
        ) {
            self.name = name
            self.address = address
            self.phone = phone
            self.cuisine = cuisine
            self.timezone = timezone
        }
    }

    public init(
        kind: JoinApplication.Kind? = nil, name: String? = nil, email: String? = nil, password: String? = nil,
        phone: String? = nil, locale: String? = nil, store: StoreFields? = nil, vehicle: String? = nil
    ) {
        self.kind = kind
        self.name = name
        self.email = email
        self.password = password
        self.phone = phone
        self.locale = locale
        self.store = store
        self.vehicle = vehicle
    }

    /// The checked application, every bad field named at once: the rules of any new user's
    /// e-mail, name, locale and password (`User.newProfile`), a required phone number, a `kind`,
    /// and the store's details (name, address, phone, cuisine, IANA time zone) for a store's or
    /// the vehicle for a courier's, never the other's. The locale is the default when absent.
    public func validated() throws(OrderlyError) -> ValidApplicationDraft {
        var problems = FieldProblems()
        let (email, name, _, password) = User.newProfile(
            email: email, name: name, phone: nil, locale: locale, password: password, &problems)
        let phone = problems.phone(phone, "phone", required: true) ?? ""
        var store: JoinApplication.StoreDetails?
        var vehicle: String?
        switch kind {
        case .store:
            if self.vehicle != nil { problems.add("vehicle", "is a courier's") }
            if let details = self.store {
                let name = problems.text(details.name, "store.name")
                let address = problems.text(details.address, "store.address", maximumLength: 500)
                let phone = problems.phone(details.phone, "store.phone")
                let cuisine = problems.optionalText(details.cuisine, "store.cuisine", maximumLength: 100)
                let timezone = problems.optionalText(details.timezone, "store.timezone", maximumLength: 64)
                if let timezone, !Store.isKnownTimeZone(timezone) {
                    problems.add("store.timezone", "must be an IANA time zone such as Asia/Jerusalem")
                }
                store = JoinApplication.StoreDetails(
                    name: name, address: address, phone: phone, cuisine: cuisine, timezone: timezone)
            } else {
                problems.add("store", "is required for a store's application")
            }
        case .courier:
            if self.store != nil { problems.add("store", "is a restaurant's") }
            vehicle = problems.text(self.vehicle, "vehicle", maximumLength: 50)
        case nil:
            problems.add("kind", "is required: store or courier")
        }
        try problems.check()
        guard let kind else { throw problems.failure }
        return ValidApplicationDraft(
            kind: kind, name: name, email: email, phone: phone, password: password,
            locale: locale ?? User.defaultLocale, store: store, vehicle: vehicle)
    }
}

/// An application as `ApplicationDraft.validated()` found it: the e-mail normalized, the texts
/// trimmed, the store's details for a store's, the vehicle for a courier's.
public struct ValidApplicationDraft: Sendable, Hashable {
    public var kind: JoinApplication.Kind
    public var name: String
    public var email: String
    public var phone: String
    public var password: String
    public var locale: String
    public var store: JoinApplication.StoreDetails?
    public var vehicle: String?
}
