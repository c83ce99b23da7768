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
}
