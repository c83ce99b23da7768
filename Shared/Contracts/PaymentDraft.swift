public import Domain
import Foundation
import WireContract

/// A payment as the cashier rings it up: the store's catalog products (priced by the catalog)
/// or free lines, or an order (`order_id`, with `amount` when paying part of it); a tip on
/// top; how the customer pays, with the card tapped (`card_uid`) for `nfc`; the store's
/// customer record it is for (`customer_id`; an NFC payment's is the card's). `id` may be
/// chosen by the client; `expires_in_seconds` (1 to an hour, 15 minutes when absent) is how
/// long it waits pending.
public struct PaymentDraft: Codable, Sendable, Hashable {
    public var id: PaymentID?
    public var storeID: StoreID?
    public var orderID: OrderID?
    public var items: [Item]?
    public var amount: Int64?
    public var tip: Int64?
    public var method: PaymentMethod?
    public var customerID: CustomerID?
    public var cardUID: String?
    public var expiresInSeconds: Int?

    /// A line: `product_id` and `quantity` for a catalog product, or `name`, `unit_price`
    /// (VAT included), `quantity` and `vat_rate_bp` for a line the cashier types.
    public struct Item: Codable, Sendable, Hashable {
        public var productID: ProductID?
        public var name: String?
        public var unitPrice: Int64?
        public var quantity: Int64?
        public var vatRateBP: Int?

        public init(
            productID: ProductID? = nil, name: String? = nil, unitPrice: Int64? = nil, quantity: Int64?,
            vatRateBP: Int? = nil
        ) {
            self.productID = productID
            self.name = name
            self.unitPrice = unitPrice
            self.quantity = quantity
            self.vatRateBP = vatRateBP
        }

        enum CodingKeys: String, CodingKey {
            case name, quantity
            case productID = "product_id"
            case unitPrice = "unit_price"
            case vatRateBP = "vat_rate_bp"
        }
    }

    public init(
        id: PaymentID? = nil, storeID: StoreID? = nil, orderID: OrderID? = nil, items: [Item]? = nil,
        amount: Int64? = nil, tip: Int64? = nil, method: PaymentMethod? = nil, customerID: CustomerID? = nil,
        cardUID: String? = nil, expiresInSeconds: Int? = nil
    ) {
        self.id = id
        self.storeID = storeID
        self.orderID = orderID
        self.items = items
        self.amount = amount
        self.tip = tip
        self.method = method
        self.customerID = customerID
        self.cardUID = cardUID
        self.expiresInSeconds = expiresInSeconds
    }

    enum CodingKeys: String, CodingKey {
        case id, items, amount, tip, method
        case storeID = "store_id"
        case orderID = "order_id"
        case customerID = "customer_id"
        case cardUID = "card_uid"
        case expiresInSeconds = "expires_in_seconds"
    }

    /// The checked request, every bad field named at once: the free lines priced, the catalog
    /// lines with their quantities (each product once), the tip, the method and the seconds to
    /// wait. Items or an order, not both.
    public func validated() throws(OrderlyError) -> ValidPaymentDraft {
        var problems = FieldProblems()
        let items = self.items ?? []
        var lines: [ValidPaymentDraft.Line] = []
        if orderID != nil {
            if !items.isEmpty { problems.add("items", "must be absent for an order's payment: the order has them") }
            _ = problems.integer(amount, "amount", in: 1...Payment.maximumAmount, required: false)
        } else {
            if items.isEmpty || items.count > Payment.maximumItems {
                problems.add("items", "must hold from 1 to \(Payment.maximumItems) lines")
            }
            if amount != nil { problems.add("amount", "is the items' total; send it only with order_id") }
        }
        var products: Set<ProductID> = []
        for (index, item) in items.enumerated() {
            let field = "items[\(index)]"
            let quantity = problems.integer(item.quantity, "\(field).quantity", in: 1...Payment.maximumQuantity) ?? 0
            if let product = item.productID {
                for (name, present) in [
                    ("name", item.name != nil), ("unit_price", item.unitPrice != nil),
                    ("vat_rate_bp", item.vatRateBP != nil),
                ] where present {
                    problems.add("\(field).\(name)", "comes from the catalog for a product line")
                }
                if !products.insert(product).inserted {
                    problems.add("\(field).product_id", "appears in another line; give each product once")
                }
                lines.append(.product(product, quantity: quantity))
            } else {
                let name = problems.text(item.name, "\(field).name")
                let price = problems.integer(item.unitPrice, "\(field).unit_price", in: 0...Payment.maximumAmount) ?? 0
                let rate = problems.integer(item.vatRateBP, "\(field).vat_rate_bp", in: 0...10_000) ?? 0
                lines.append(.free(name: name, unitPrice: price, quantity: quantity, vatRateBP: rate))
            }
        }
        let tip = problems.integer(tip ?? 0, "tip", in: 0...Payment.maximumAmount) ?? 0
        if method == nil { problems.add("method", "is required") }
        var card: String?
        if method == .nfc {
            if let cardUID {
                card = Card.normalizedUID(cardUID)
                if card == nil { problems.add("card_uid", CardDraft.uidRule) }
            } else {
                problems.add("card_uid", "is required for an nfc payment: the card tapped")
            }
        } else if cardUID != nil {
            problems.add("card_uid", "is for nfc payments only")
        }
        let seconds = problems.integer(
            expiresInSeconds, "expires_in_seconds", in: 1...PaymentsAPI.maximumPendingSeconds, required: false)
        try problems.check()
        return ValidPaymentDraft(
            lines: lines, tip: tip, method: method ?? .cash, cardUID: card,
            pendingSeconds: seconds ?? PaymentsAPI.defaultPendingSeconds)
    }

    /// The order a customer's card payment is for, checked: `order_id` and `method: card`,
    /// nothing else (a customer pays what is left of the order and its tip).
    public func validatedOnline() throws(OrderlyError) -> OrderID {
        var problems = FieldProblems()
        let orderID = problems.required(orderID, "order_id")
        if method != .card { problems.add("method", "must be card: a customer pays online by card") }
        for (field, given) in [
            ("items", items != nil), ("amount", amount != nil), ("tip", tip != nil),
            ("customer_id", customerID != nil), ("expires_in_seconds", expiresInSeconds != nil),
        ] where given {
            problems.add(field, "is the order's: a customer pays what is left of it")
        }
        guard let orderID, problems.isEmpty else { throw problems.failure }
        return orderID
    }
}
