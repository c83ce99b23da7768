public import Domain
import Foundation
import WireContract

/// A refund to make: `amount` (what is left when absent) for `reason`, and the units to put
/// back on the shelf (`restock_lines`, of the payment's tracked items).
public struct RefundRequest: Codable, Sendable, Hashable {
    public var paymentID: PaymentID
    public var amount: Int64?
    public var reason: String?
    public var restockLines: [Reservation.Line]?

    public init(paymentID: PaymentID, amount: Int64?, reason: String?, restockLines: [Reservation.Line]? = nil) {
        self.paymentID = paymentID
        self.amount = amount
        self.reason = reason
        self.restockLines = restockLines
    }

    enum CodingKeys: String, CodingKey {
        case amount, reason
        case paymentID = "payment_id"
        case restockLines = "restock_lines"
    }
}
