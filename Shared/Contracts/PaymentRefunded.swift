public import Domain
import Foundation
import WireContract

/// The payload of `payment.refunded`: the payment after the refund, and the refund.
public struct PaymentRefunded: Codable, Sendable, Hashable {
    public var payment: Payment
    public var refund: Refund

    public init(payment: Payment, refund: Refund) {
        self.payment = payment
        self.refund = refund
    }
}
