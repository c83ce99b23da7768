public import Foundation

/// A store's record of one of its customers, kept at the till: how to reach them, their wallet,
/// and optionally the signed-up customer account (`user_id`) the store knows them by, to whom
/// the payments naming the record are then made out. `milestones` are kept by the server from
/// what happens: the first card linked to them, their first completed payment, and the first
/// time `auto_sign` was turned on.
public struct Customer: Hashable, Sendable, Codable {
    public var id: CustomerID
    public var storeID: StoreID
    /// Optional: a till may know a customer by their wallet or card alone.
    public var name: String?
    public var email: String?
    public var phone: String?
    public var logoURL: String?
    public var walletAddress: String?
    public var notes: String?
    public var userID: UserID?
    /// Whether the customer lets their wallet sign payments without asking each time.
    public var autoSign: Bool
    public var milestones: Milestones
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public struct Milestones: Hashable, Sendable, Codable {
        public var firstCardLinkedAt: Date?
        public var firstPaymentAt: Date?
        public var autoSignEnabledAt: Date?

        public init(firstCardLinkedAt: Date? = nil, firstPaymentAt: Date? = nil, autoSignEnabledAt: Date? = nil) {
            self.firstCardLinkedAt = firstCardLinkedAt
            self.firstPaymentAt = firstPaymentAt
            self.autoSignEnabledAt = autoSignEnabledAt
        }

        enum CodingKeys: String, CodingKey {
            case firstCardLinkedAt = "first_card_linked_at"
            case firstPaymentAt = "first_payment_at"
            case autoSignEnabledAt = "auto_sign_enabled_at"
        }
    }

    public init(id: CustomerID, storeID: StoreID, createdAt: Date) {
        self.id = id
        self.storeID = storeID
        self.autoSign = false
        self.milestones = Milestones()
        self.version = 1
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    /// What names the customer in a text: their name, else their e-mail, phone or wallet
    /// address, else the start of the record's id.
    public var label: String {
        name ?? email ?? phone ?? walletAddress ?? String(id.description.prefix(8))
    }

    /// Whether nothing names the customer: no name, e-mail, phone, wallet or account.
    public var isAnonymous: Bool {
        name == nil && email == nil && phone == nil && walletAddress == nil && userID == nil
    }

    /// Records that a card was linked to the customer at `now`, the first time only.
    public mutating func cardLinked(at now: Date) -> Bool {
        guard milestones.firstCardLinkedAt == nil else { return false }
        milestones.firstCardLinkedAt = now
        return true
    }

    /// Records a completed payment naming the customer at `now`, the first time only.
    public mutating func paid(at now: Date) -> Bool {
        guard milestones.firstPaymentAt == nil else { return false }
        milestones.firstPaymentAt = now
        return true
    }

    /// The next version, changed at `now`.
    public mutating func touch(at now: Date) {
        version += 1
        updatedAt = now
    }

    enum CodingKeys: String, CodingKey {
        case id, name, email, phone, notes, milestones, version
        case storeID = "store_id"
        case logoURL = "logo_url"
        case walletAddress = "wallet_address"
        case userID = "user_id"
        case autoSign = "auto_sign"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// A customer record's fields as a client sends them, all optional so that validation names
/// every problem. A record is known by at least one of `name`, `email`, `phone`,
/// `wallet_address` and `user_id`; on a patch absent means unchanged and blank text clears an
/// optional field (`user_id` is cleared by `unlink_user`).
public struct CustomerDraft: Hashable, Sendable, Codable {
    /// Chosen by the client for records created offline; the server picks one otherwise.
    public var id: CustomerID?
    public var name: String?
    public var email: String?
    public var phone: String?
    public var logoURL: String?
    public var walletAddress: String?
    public var notes: String?
    public var userID: UserID?
    /// On a patch, forgets the linked account.
    public var unlinkUser: Bool?
    public var autoSign: Bool?

    public init(
        id: CustomerID? = nil, name: String? = nil, email: String? = nil, phone: String? = nil,
        logoURL: String? = nil, walletAddress: String? = nil, notes: String? = nil, userID: UserID? = nil,
        unlinkUser: Bool? = nil, autoSign: Bool? = nil
    ) {
        self.id = id
        self.name = name
        self.email = email
        self.phone = phone
        self.logoURL = logoURL
        self.walletAddress = walletAddress
        self.notes = notes
        self.userID = userID
        self.unlinkUser = unlinkUser
        self.autoSign = autoSign
    }

    enum CodingKeys: String, CodingKey {
        case id, name, email, phone, notes
        case logoURL = "logo_url"
        case walletAddress = "wallet_address"
        case userID = "user_id"
        case unlinkUser = "unlink_user"
        case autoSign = "auto_sign"
    }

    /// A new customer record of `store` made at `now` from the draft, every bad field named at
    /// once; `auto_sign` on is a milestone.
    public func validated(creatingIn store: StoreID, at now: Date) throws(OrderlyError) -> Customer {
        try validated(onto: Customer(id: id ?? CustomerID(), storeID: store, createdAt: now), creating: true, at: now)
    }

    /// `customer` with the draft's changes at `now`, every bad field named at once; `auto_sign`
    /// turned on for the first time is a milestone.
    public func validated(updating customer: Customer, at now: Date) throws(OrderlyError) -> Customer {
        try validated(onto: customer, creating: false, at: now)
    }

    private func validated(onto customer: Customer, creating: Bool, at now: Date) throws(OrderlyError) -> Customer {
        var customer = customer
        let named = !customer.isAnonymous
        var problems = FieldProblems()
        if creating {
            if unlinkUser != nil { problems.add("unlink_user", "is for changing a customer") }
        } else {
            if id != nil { problems.add("id", "cannot be changed") }
            if unlinkUser == true, userID != nil { problems.add("unlink_user", "cannot be sent with user_id") }
        }
        if let name { customer.name = problems.optionalText(name, "name") }
        if let email {
            customer.email = problems.optionalText(email, "email", maximumLength: 254).map(User.normalizedEmail)
            if let given = customer.email, !User.isEmailAddress(given) {
                problems.add("email", "must be an e-mail address")
            }
        }
        if let phone { customer.phone = problems.phone(phone, "phone") }
        if let logoURL { customer.logoURL = problems.webAddress(logoURL, "logo_url") }
        if let walletAddress {
            customer.walletAddress = problems.optionalText(walletAddress, "wallet_address", maximumLength: 128)
            if let wallet = customer.walletAddress, !Self.isWalletAddress(wallet) {
                problems.add("wallet_address", "must be letters, digits and : . _ - only")
            }
        }
        if let notes { customer.notes = problems.optionalText(notes, "notes", maximumLength: 2000) }
        if let userID { customer.userID = userID }
        if unlinkUser == true { customer.userID = nil }
        if let autoSign {
            customer.autoSign = autoSign
            if autoSign, customer.milestones.autoSignEnabledAt == nil { customer.milestones.autoSignEnabledAt = now }
        }
        if problems.isEmpty, customer.isAnonymous, creating || named {
            problems.add("name", "is required without email, phone, wallet_address or user_id")
        }
        try problems.check()
        return customer
    }

    /// A wallet address as ledgers write them (`rN7n…`, `0x52908…`, `addr1…`): letters, digits
    /// and `: . _ -`.
    static func isWalletAddress(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || ":._-".unicodeScalars.contains($0)
        }
    }
}
