public import Domain
import Foundation
import WireContract

/// Stock to hold for a sale: `lines` of distinct products of the store, for
/// `expires_in_seconds` (1 to a day; 15 minutes when absent). `id` may be chosen by the client.
/// `orderID` is the orders service's alone: the order whose line the stock is for, which then
/// keeps it held until the order ends once the line is stored (the catalog's `OrderHoldsFollower`).
/// `paymentID` is the payments service's alone: the payment whose items the stock is for, which it
/// then follows (the catalog's `PaymentHoldsFollower`).
public struct NewReservation: Codable, Sendable, Hashable {
    public var id: ReservationID?
    public var storeID: StoreID
    public var orderID: OrderID?
    public var paymentID: PaymentID?
    public var lines: [Reservation.Line]?
    public var reference: String?
    public var expiresInSeconds: Int?

    public init(
        id: ReservationID? = nil, storeID: StoreID, orderID: OrderID? = nil, paymentID: PaymentID? = nil,
        lines: [Reservation.Line]?, reference: String? = nil, expiresInSeconds: Int? = nil
    ) {
        self.id = id
        self.storeID = storeID
        self.orderID = orderID
        self.paymentID = paymentID
        self.lines = lines
        self.reference = reference
        self.expiresInSeconds = expiresInSeconds
    }

    enum CodingKeys: String, CodingKey {
        case id, lines, reference
        case storeID = "store_id"
        case orderID = "order_id"
        case paymentID = "payment_id"
        case expiresInSeconds = "expires_in_seconds"
    }

    /// The checked request: lines, reference trimmed, seconds to hold; every bad field named at
    /// once.
    public func validated() throws(OrderlyError) -> (lines: [Reservation.Line], reference: String?, seconds: Int) {
        var problems = FieldProblems()
        let lines = self.lines ?? []
        if lines.isEmpty || lines.count > Reservation.maximumLines {
            problems.add("lines", "must hold from 1 to \(Reservation.maximumLines) lines")
        }
        problems.productLines(lines, "lines", maximumQuantity: Product.maximumQuantity)
        let reference = problems.optionalText(reference, "reference")
        let seconds = problems.integer(
            expiresInSeconds, "expires_in_seconds", in: 1...Reservation.maximumSeconds, required: false)
        try problems.check()
        return (lines, reference, seconds ?? Reservation.defaultSeconds)
    }
}
