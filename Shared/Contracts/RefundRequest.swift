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

    /// The checked request, every bad field named at once: the reason (required, at most 500
    /// characters), the amount when given (1 or more), and the restock lines (each product once,
    /// each with 1 or more units). What the payment allows is checked against the payment.
    public func validated() throws(OrderlyError) -> ValidRefundRequest {
        var problems = FieldProblems()
        let reason = problems.text(reason, "reason", maximumLength: 500)
        _ = problems.integer(amount, "amount", in: 1...Payment.maximumAmount, required: false)
        let restock = restockLines ?? []
        if restock.count > Payment.maximumItems {
            problems.add("restock_lines", "must hold at most \(Payment.maximumItems) lines")
        }
        problems.productLines(restock, "restock_lines", maximumQuantity: Payment.maximumQuantity)
        try problems.check()
        return ValidRefundRequest(amount: amount, reason: reason, restockLines: restock)
    }
}

/// A refund request that passed validation: the amount (what is left when nil), the reason
/// trimmed, and the units to restock.
public struct ValidRefundRequest: Hashable, Sendable {
    public var amount: Int64?
    public var reason: String
    public var restockLines: [Reservation.Line]
}
