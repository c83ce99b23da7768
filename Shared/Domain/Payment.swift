public import Foundation

/// How a customer pays.
public enum PaymentMethod: String, Hashable, Sendable, Codable, CaseIterable {
    case cash, card, nfc, wallet, other
}

/// Where a payment stands. Terminal: completed, failed, cancelled, expired.
public enum PaymentStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case pending, confirmed, processing, completed, failed, cancelled, expired
}

/// Money taken by a store: `subtotal` for the goods or order, `tip` on top, `amount` the two
/// together. All in `currency` minor units.
public struct Payment: Hashable, Sendable, Codable {
    public var id: PaymentID
    public var storeID: StoreID
    public var orderID: OrderID?
    public var subtotal: Int64
    public var tip: Int64
    public var amount: Int64
    public var currency: CurrencyCode
    public var method: PaymentMethod
    public var status: PaymentStatus
    /// Who took the payment.
    public var staffID: UserID
    public var receiptID: ReceiptID?
    public var refundedAmount: Int64
    public var createdAt: Date
    public var completedAt: Date?

    public init(
        id: PaymentID, storeID: StoreID, orderID: OrderID?, subtotal: Int64, tip: Int64, amount: Int64,
        currency: CurrencyCode, method: PaymentMethod, status: PaymentStatus, staffID: UserID,
        receiptID: ReceiptID?, refundedAmount: Int64, createdAt: Date, completedAt: Date?
    ) {
        self.id = id
        self.storeID = storeID
        self.orderID = orderID
        self.subtotal = subtotal
        self.tip = tip
        self.amount = amount
        self.currency = currency
        self.method = method
        self.status = status
        self.staffID = staffID
        self.receiptID = receiptID
        self.refundedAmount = refundedAmount
        self.createdAt = createdAt
        self.completedAt = completedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, subtotal, tip, amount, currency, method, status
        case storeID = "store_id"
        case orderID = "order_id"
        case staffID = "staff_id"
        case receiptID = "receipt_id"
        case refundedAmount = "refunded_amount"
        case createdAt = "created_at"
        case completedAt = "completed_at"
    }
}

/// The record a customer gets for a completed payment, numbered per store from 1.
public struct Receipt: Hashable, Sendable, Codable {
    public var id: ReceiptID
    public var number: Int64
    public var storeID: StoreID
    public var paymentID: PaymentID
    public var orderID: OrderID?
    public var subtotal: Int64
    public var tip: Int64
    public var total: Int64
    public var currency: CurrencyCode
    public var method: PaymentMethod
    public var staffID: UserID
    public var issuedAt: Date
    /// The receipt as plain text, for printing.
    public var text: String

    public init(
        id: ReceiptID, number: Int64, storeID: StoreID, paymentID: PaymentID, orderID: OrderID?, subtotal: Int64,
        tip: Int64, total: Int64, currency: CurrencyCode, method: PaymentMethod, staffID: UserID, issuedAt: Date,
        text: String
    ) {
        self.id = id
        self.number = number
        self.storeID = storeID
        self.paymentID = paymentID
        self.orderID = orderID
        self.subtotal = subtotal
        self.tip = tip
        self.total = total
        self.currency = currency
        self.method = method
        self.staffID = staffID
        self.issuedAt = issuedAt
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case id, number, subtotal, tip, total, currency, method, text
        case storeID = "store_id"
        case paymentID = "payment_id"
        case orderID = "order_id"
        case staffID = "staff_id"
        case issuedAt = "issued_at"
    }
}
