public import Foundation

/// An NFC card a store registered: its `uid` as the reader gives it (upper-case hex, no
/// separators), `uid_display` as printed on the card (`04:A2:24:B1`), an optional name, its
/// status, and the customer and wallet it pays for. Only an active card pays.
public struct Card: Hashable, Sendable, Codable {
    public var id: CardID
    public var storeID: StoreID
    public var uid: String
    public var uidDisplay: String
    public var name: String?
    public var status: CardStatus
    public var customerID: CustomerID?
    public var walletAddress: String?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: CardID, storeID: StoreID, uid: String, createdAt: Date) {
        self.id = id
        self.storeID = storeID
        self.uid = uid
        self.uidDisplay = Self.display(uid)
        self.status = .active
        self.version = 1
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    /// The next version, changed at `now`.
    public mutating func touch(at now: Date) {
        version += 1
        updatedAt = now
    }

    /// A card's uid as a reader may send it (hex digits in either case, its bytes perhaps
    /// separated by one `:`, `-` or space) in the one form kept: upper-case hex of 4 to 10 bytes
    /// (the sizes ISO/IEC 14443 gives uids); nil when it is not one.
    public static func normalizedUID(_ text: String) -> String? {
        var hex = ""
        var separated = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9", "A"..."F", "a"..."f":
                hex += String(scalar).uppercased()
                separated = false
            // Only between two bytes, one at a time.
            case ":", "-", " ":
                guard !separated, !hex.isEmpty, hex.count % 2 == 0 else { return nil }
                separated = true
            default: return nil
            }
        }
        guard !separated, hex.count % 2 == 0, (8...20).contains(hex.count) else { return nil }
        return hex
    }

    /// The uid as printed: its bytes separated by colons.
    static func display(_ uid: String) -> String {
        var pairs: [Substring] = []
        var rest = Substring(uid)
        while !rest.isEmpty {
            pairs.append(rest.prefix(2))
            rest = rest.dropFirst(2)
        }
        return pairs.joined(separator: ":")
    }

    /// Refuses a payment by the card unless it is active (422 `card_blocked`).
    public func checkPays() throws(OrderlyError) {
        guard status == .active else {
            throw OrderlyError(
                .cardBlocked, "the card \(uidDisplay) is \(status.rawValue) and cannot pay",
                details: ["card_uid": .string("is \(status.rawValue)")])
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, uid, name, status, version
        case storeID = "store_id"
        case uidDisplay = "uid_display"
        case customerID = "customer_id"
        case walletAddress = "wallet_address"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// Whether a card pays: `active`; `inactive` (put aside, by the store or its holder) and
/// `blocked` (lost or misused) do not.
public enum CardStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case active, inactive, blocked
}

/// A card's fields as a client sends them. On creation `uid` is required and the card is
/// active unless `status` says otherwise; on a patch absent means unchanged, a blank name
/// clears it and `unlink_customer` forgets the customer. The uid is the card's and never
/// changes.
public struct CardDraft: Hashable, Sendable, Codable {
    /// Chosen by the client for cards registered offline; the server picks one otherwise.
    public var id: CardID?
    public var uid: String?
    public var name: String?
    public var status: CardStatus?
    public var customerID: CustomerID?
    public var unlinkCustomer: Bool?
    public var walletAddress: String?

    public init(
        id: CardID? = nil, uid: String? = nil, name: String? = nil, status: CardStatus? = nil,
        customerID: CustomerID? = nil, unlinkCustomer: Bool? = nil, walletAddress: String? = nil
    ) {
        self.id = id
        self.uid = uid
        self.name = name
        self.status = status
        self.customerID = customerID
        self.unlinkCustomer = unlinkCustomer
        self.walletAddress = walletAddress
    }

    enum CodingKeys: String, CodingKey {
        case id, uid, name, status
        case customerID = "customer_id"
        case unlinkCustomer = "unlink_customer"
        case walletAddress = "wallet_address"
    }

    /// The uid of a card, checked and normalized: required, 4 to 10 bytes in hex.
    public func validUID() throws(OrderlyError) -> String {
        guard let uid else { throw OrderlyError.invalidFields(["uid": "is required"]) }
        guard let normalized = Card.normalizedUID(uid) else {
            throw OrderlyError.invalidFields(["uid": Self.uidRule])
        }
        return normalized
    }

    public static let uidRule =
        "must be 4 to 10 bytes in hex (8 to 20 hex digits, pairs perhaps separated by : - or spaces)"

    /// A new card of `store` made at `now` from the draft, every bad field named at once (the
    /// uid required and normalized). Whether `customer_id` names a customer of the store is the
    /// caller's to check.
    public func validated(creatingIn store: StoreID, at now: Date) throws(OrderlyError) -> Card {
        var problems = FieldProblems()
        var uid = ""
        do { uid = try validUID() } catch { problems.add(error) }
        var card = Card(id: id ?? CardID(), storeID: store, uid: uid, createdAt: now)
        apply(to: &card, creating: true, &problems)
        try problems.check()
        return card
    }

    /// `card` with the draft's changes, every bad field named at once. Whether `customer_id`
    /// names a customer of the store is the caller's to check.
    public func validated(updating card: Card) throws(OrderlyError) -> Card {
        var problems = FieldProblems()
        var card = card
        apply(to: &card, creating: false, &problems)
        try problems.check()
        return card
    }

    private func apply(to card: inout Card, creating: Bool, _ problems: inout FieldProblems) {
        if !creating {
            if id != nil { problems.add("id", "cannot be changed") }
            if uid != nil { problems.add("uid", "is the card's and cannot be changed") }
            if unlinkCustomer == true, customerID != nil {
                problems.add("unlink_customer", "cannot be sent with customer_id")
            }
        } else if unlinkCustomer != nil {
            problems.add("unlink_customer", "is for changing a card")
        }
        if let name { card.name = problems.optionalText(name, "name", maximumLength: 100) }
        if let status { card.status = status }
        if let customerID { card.customerID = customerID }
        if unlinkCustomer == true { card.customerID = nil }
        if let walletAddress {
            card.walletAddress = problems.optionalText(walletAddress, "wallet_address", maximumLength: 128)
            if let wallet = card.walletAddress, !CustomerDraft.isWalletAddress(wallet) {
                problems.add("wallet_address", "must be letters, digits and : . _ - only")
            }
        }
    }
}
