public import Domain
import WireContract

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
