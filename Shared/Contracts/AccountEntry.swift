public import Domain
import WireContract

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
