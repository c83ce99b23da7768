public import Foundation

/// Stock held for a sale that has not happened yet: every line's units are counted in its
/// product's `reserved` while the reservation is `held`. It ends once: `committed` (the units
/// are sold, `sale` ledger entries), `released` (given back) or `expired` (given back when its
/// time ran out). A reservation for an order line carries the order's id; once the line is
/// stored it is held until the order ends, without a time limit (`expiresAt` nil).
public struct Reservation: Hashable, Sendable, Codable {
    public var id: ReservationID
    public var storeID: StoreID
    public var status: ReservationStatus
    public var lines: [Line]
    /// What the stock is held for: an order or payment, as the caller names it.
    public var reference: String?
    /// The order whose line the stock is held for, when it is one.
    public var orderID: OrderID?
    /// The payment whose items the stock is held for, when it is one: it ends with the payment.
    public var paymentID: PaymentID?
    /// Nil once the reservation is held for its order until the order ends.
    public var expiresAt: Date?
    public var createdBy: UserID
    public var createdAt: Date
    public var updatedAt: Date

    public struct Line: Hashable, Sendable, Codable {
        public var productID: ProductID
        public var quantity: Int64

        public init(productID: ProductID, quantity: Int64) {
            self.productID = productID
            self.quantity = quantity
        }

        enum CodingKeys: String, CodingKey {
            case quantity
            case productID = "product_id"
        }
    }

    public init(
        id: ReservationID, storeID: StoreID, status: ReservationStatus = .held, lines: [Line], reference: String?,
        orderID: OrderID? = nil, paymentID: PaymentID? = nil, expiresAt: Date?, createdBy: UserID, createdAt: Date,
        updatedAt: Date
    ) {
        self.id = id
        self.storeID = storeID
        self.status = status
        self.lines = lines
        self.reference = reference
        self.orderID = orderID
        self.paymentID = paymentID
        self.expiresAt = expiresAt
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, status, lines, reference
        case storeID = "store_id"
        case orderID = "order_id"
        case paymentID = "payment_id"
        case expiresAt = "expires_at"
        case createdBy = "created_by"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Whether ending the reservation as `outcome` at `now` changes it: false when it has ended
    /// so already (a repeated commit or release, or a release of an expired one), and for an
    /// expiry that is not due. Throws `409 reservation_closed` when it ended
    /// otherwise, and `409 reservation_expired` for a commit after its time ran out, even
    /// before the sweep has released it.
    public func ends(as outcome: ReservationStatus, at now: Date) throws(OrderlyError) -> Bool {
        precondition(outcome != .held, "a reservation ends committed, released or expired")
        // Released or expired, the stock is back either way.
        if status == outcome || (outcome == .released && status == .expired) { return false }
        guard status == .held else {
            throw OrderlyError(
                .reservationClosed, "the reservation was \(status.rawValue) already",
                details: ["status": .string(status.rawValue)])
        }
        // Only a reservation whose time has come expires: one held for its order since has none.
        if outcome == .expired {
            guard let expiresAt, now >= expiresAt else { return false }
        }
        if outcome == .committed, let expiresAt, now >= expiresAt {
            throw OrderlyError(
                .reservationExpired, "the reservation expired at \(RFC3339.format(expiresAt))")
        }
        return true
    }

    /// The longest a reservation may hold stock, in seconds (a day), and the default (15 minutes).
    public static let maximumSeconds = 86_400
    public static let defaultSeconds = 900
    /// The most lines one reservation holds.
    public static let maximumLines = 100
}

public enum ReservationStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case held, committed, released, expired
}
