public import Domain
public import WireContract

extension PaymentsAPI {
    /// A store's or a courier's balances and the entries that moved them.
    public static let balance = WireMethod<BalanceRequest, AccountBalance>(
        "payments.ledger.balance", safeToRetry: true)
    /// Records a payout to a store or a courier, or cash paid in by one.
    public static let recordPayout = WireMethod<PayoutRequest, Payout>("payments.ledger.payout", safeToRetry: false)
}

/// Whose balance to read (a store's or a courier's, exactly one) and which page of its entries.
public struct BalanceRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var courierID: UserID?
    public var page: PageRequest

    public init(storeID: StoreID? = nil, courierID: UserID? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.courierID = courierID
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case page
        case storeID = "store_id"
        case courierID = "courier_id"
    }

    /// The holder named.
    public func holder() throws(OrderlyError) -> Ledger.Holder {
        switch (storeID, courierID) {
        case (let store?, nil): return .store(store)
        case (nil, let courier?): return .courier(courier)
        default: throw OrderlyError.invalidFields(["store_id": "name a store or a courier, one of the two"])
        }
    }
}

/// A payout to `store_id` or `courier_id` (exactly one): a positive `amount` paid out of what
/// they earned, a negative one cash they paid in; `reference` the transfer's, `note` free text.
public struct PayoutRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var courierID: UserID?
    public var payout: PayoutDraft

    public init(storeID: StoreID? = nil, courierID: UserID? = nil, payout: PayoutDraft) {
        self.storeID = storeID
        self.courierID = courierID
        self.payout = payout
    }

    enum CodingKeys: String, CodingKey {
        case payout
        case storeID = "store_id"
        case courierID = "courier_id"
    }
}

/// The body of `POST /v1/stores/{id}/payouts` and `POST /v1/couriers/{id}/payouts`.
public struct PayoutDraft: Codable, Sendable, Hashable {
    public var id: PayoutID?
    public var amount: Int64?
    public var currency: CurrencyCode?
    public var reference: String?
    public var note: String?

    public init(
        id: PayoutID? = nil, amount: Int64?, currency: CurrencyCode?, reference: String? = nil, note: String? = nil
    ) {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.reference = reference
        self.note = note
    }
}

/// One currency of a holder's money: what they `earned` and not been paid out, the `cash_held`
/// they took in themselves, the `balance` the platform owes them now (the one less the other;
/// negative when they owe the platform), the part of the balance credited too recently to pay
/// out (`pending`), and what a payout may take (`available`).
public struct CurrencyBalance: Codable, Sendable, Hashable {
    public var currency: CurrencyCode
    public var earned: Int64
    public var cashHeld: Int64
    public var pending: Int64

    public init(currency: CurrencyCode, earned: Int64 = 0, cashHeld: Int64 = 0, pending: Int64 = 0) {
        self.currency = currency
        self.earned = earned
        self.cashHeld = cashHeld
        self.pending = pending
    }

    public var balance: Int64 { earned - cashHeld }
    public var available: Int64 { max(0, balance - pending) }

    /// Counts `credited`, the credits still held back, as pending: no more than the balance.
    public mutating func held(_ credited: Int64) { pending = max(0, min(credited, balance)) }

    enum CodingKeys: String, CodingKey {
        case currency, earned, balance, pending, available
        case cashHeld = "cash_held"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        currency = try container.decode(CurrencyCode.self, forKey: .currency)
        earned = try container.decode(Int64.self, forKey: .earned)
        cashHeld = try container.decode(Int64.self, forKey: .cashHeld)
        pending = try container.decode(Int64.self, forKey: .pending)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(currency, forKey: .currency)
        try container.encode(earned, forKey: .earned)
        try container.encode(cashHeld, forKey: .cashHeld)
        try container.encode(balance, forKey: .balance)
        try container.encode(pending, forKey: .pending)
        try container.encode(available, forKey: .available)
    }
}

/// An entry as one holder reads it: the entry whole, and what it moved of their balance.
public struct AccountEntry: Codable, Sendable, Hashable {
    public var amount: Int64
    public var entry: LedgerEntry

    public init(amount: Int64, entry: LedgerEntry) {
        self.amount = amount
        self.entry = entry
    }

    enum CodingKeys: String, CodingKey { case amount }

    public init(from decoder: any Decoder) throws {
        amount = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .amount)
        entry = try LedgerEntry(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(amount, forKey: .amount)
    }
}

/// A holder's balances per currency, and a page of the entries that moved them, newest first.
public struct AccountBalance: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var courierID: UserID?
    public var balances: [CurrencyBalance]
    public var data: [AccountEntry]
    public var nextCursor: String?

    public init(
        holder: Ledger.Holder, balances: [CurrencyBalance], data: [AccountEntry], nextCursor: String?
    ) {
        if case .store(let store) = holder { storeID = store }
        if case .courier(let courier) = holder { courierID = courier }
        self.balances = balances
        self.data = data
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case balances, data
        case storeID = "store_id"
        case courierID = "courier_id"
        case nextCursor = "next_cursor"
    }
}
