public import Domain
public import Foundation
import WireContract

/// What a provider reports about a payment: `confirmed`, `processing`, `completed` or `failed`,
/// its reference for it, and when it happened. `id` is the provider's for the event: the same
/// report sent again changes nothing.
public struct ProviderEvent: Codable, Sendable, Hashable {
    public var id: String?
    public var provider: String?
    public var paymentID: PaymentID?
    public var type: PaymentStatus?
    public var providerRef: String?
    /// What the provider took, in minor units of `currency`: required on `completed`, and
    /// checked against the payment wherever it is given.
    public var amount: Int64?
    public var currency: CurrencyCode?
    /// What the payment was settled in; only on `completed`.
    public var settlement: Settlement?
    public var at: Date?

    public init(
        id: String?, provider: String?, paymentID: PaymentID?, type: PaymentStatus?, providerRef: String?,
        amount: Int64? = nil, currency: CurrencyCode? = nil, settlement: Settlement? = nil, at: Date?
    ) {
        self.id = id
        self.provider = provider
        self.paymentID = paymentID
        self.type = type
        self.providerRef = providerRef
        self.amount = amount
        self.currency = currency
        self.settlement = settlement
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, type, at, amount, currency, settlement
        case paymentID = "payment_id"
        case providerRef = "provider_ref"
    }

    /// The statuses a provider reports.
    public static let types: [PaymentStatus] = [.confirmed, .processing, .completed, .failed]

    /// The checked report, every bad field named at once: its id, the payment and a type a
    /// provider reports; on `completed` the amount and currency, and a settlement only there.
    /// Whether it fits the payment is checked against the payment.
    public func validated() throws(OrderlyError) -> ValidProviderEvent {
        var problems = FieldProblems()
        let eventID = problems.text(id, "id")
        let reference = problems.optionalText(providerRef, "provider_ref")
        if paymentID == nil { problems.add("payment_id", "is required") }
        if let type, !Self.types.contains(type) {
            problems.add("type", "must be one of \(Self.types.map(\.rawValue).joined(separator: ", "))")
        } else if type == nil {
            problems.add("type", "is required")
        }
        if type == .completed {
            if amount == nil { problems.add("amount", "is required on a completed report") }
            if currency == nil { problems.add("currency", "is required on a completed report") }
        }
        if let amount, amount < 0 { problems.add("amount", "must be 0 or more") }
        if let settlement {
            if type != .completed { problems.add("settlement", "only a completed report carries one") }
            settlement.validate(into: &problems, field: "settlement")
        }
        guard let paymentID, let type, problems.isEmpty else { throw problems.failure }
        return ValidProviderEvent(
            id: eventID, paymentID: paymentID, type: type, providerRef: reference, amount: amount, currency: currency,
            settlement: settlement)
    }
}

/// A provider's report that passed validation, its text trimmed.
public struct ValidProviderEvent: Hashable, Sendable {
    public var id: String
    public var paymentID: PaymentID
    public var type: PaymentStatus
    public var providerRef: String?
    public var amount: Int64?
    public var currency: CurrencyCode?
    public var settlement: Settlement?
}
