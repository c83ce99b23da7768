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
}
