public import Domain
import Foundation
import WireContract

/// The cash a customer handed over for a pending cash payment.
public struct CashConfirmation: Codable, Sendable, Hashable {
    public var paymentID: PaymentID
    public var amountTendered: Int64?

    public init(paymentID: PaymentID, amountTendered: Int64?) {
        self.paymentID = paymentID
        self.amountTendered = amountTendered
    }

    enum CodingKeys: String, CodingKey {
        case paymentID = "payment_id"
        case amountTendered = "amount_tendered"
    }

    /// The cash handed over, checked: required, from 0 to ten times the largest payment.
    /// Whether it covers the payment is checked against the payment.
    public func validated() throws(OrderlyError) -> Int64 {
        var problems = FieldProblems()
        let tendered = problems.integer(amountTendered, "amount_tendered", in: 0...Payment.maximumAmount * 10) ?? 0
        try problems.check()
        return tendered
    }
}
