public import Domain
public import Wire

/// The payments service's methods.
public enum PaymentsAPI {
    public static let service = "payments"
    /// Store users in their store, admins in any (`store_id`); needs an idempotency key.
    public static let recordPayment = WireMethod<PaymentDraft, Payment>("payments.record", safeToRetry: false)
    public static let getPayment = WireMethod<ResourceRef<PaymentID>, Payment>("payments.get", safeToRetry: true)
    public static let getReceipt = WireMethod<ResourceRef<ReceiptID>, Receipt>(
        "payments.receipts.get", safeToRetry: true)

    /// The events the payments service publishes on `orderly:events:payments`, each with the
    /// payment as its payload.
    public enum Events {
        public static let completed = "payment.completed"
    }
}

/// A payment as a client records it: `amount` for the goods or order, `tip` on top.
public struct PaymentDraft: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var orderID: OrderID?
    public var amount: Int64?
    public var tip: Int64?
    public var method: PaymentMethod?

    public init(
        storeID: StoreID? = nil, orderID: OrderID? = nil, amount: Int64? = nil, tip: Int64? = nil,
        method: PaymentMethod? = nil
    ) {
        self.storeID = storeID
        self.orderID = orderID
        self.amount = amount
        self.tip = tip
        self.method = method
    }

    enum CodingKeys: String, CodingKey {
        case amount, tip, method
        case storeID = "store_id"
        case orderID = "order_id"
    }
}
