public import Domain
import WireContract

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
