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

    /// The checked draft, every bad field named at once: a non-zero amount (paid out when
    /// positive, paid in when negative), the currency, and the reference and note trimmed.
    /// Whether the balance allows it is checked against the ledger.
    public func validated() throws(OrderlyError) -> ValidPayoutDraft {
        var problems = FieldProblems()
        let amount = problems.integer(amount, "amount", in: -Payment.maximumAmount...Payment.maximumAmount)
        if amount == 0 { problems.add("amount", "must not be 0") }
        if currency == nil { problems.add("currency", "is required") }
        let reference = problems.optionalText(reference, "reference", maximumLength: 200)
        let note = problems.optionalText(note, "note", maximumLength: 500)
        guard let amount, let currency, problems.isEmpty else { throw problems.failure }
        return ValidPayoutDraft(id: id, amount: amount, currency: currency, reference: reference, note: note)
    }
}

/// A payout draft that passed validation.
public struct ValidPayoutDraft: Hashable, Sendable {
    public var id: PayoutID?
    public var amount: Int64
    public var currency: CurrencyCode
    public var reference: String?
    public var note: String?
}
