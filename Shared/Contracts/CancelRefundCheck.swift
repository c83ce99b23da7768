public import Domain
import Foundation
import WireContract

/// What cancelling an order would refund of its payments: `amount` in `currency` (nil when
/// nothing), which the caller may.
public struct CancelRefundCheck: Codable, Sendable, Hashable {
    public var amount: Int64
    public var currency: CurrencyCode?

    public init(amount: Int64, currency: CurrencyCode?) {
        self.amount = amount
        self.currency = currency
    }
}
