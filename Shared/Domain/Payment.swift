public import Foundation

/// How a customer pays.
public enum PaymentMethod: String, Hashable, Sendable, Codable, CaseIterable {
    case cash, card, nfc, wallet, other

    /// Whether a payment provider completes it (`card`, `nfc`, `wallet`, `other`) rather than
    /// the cashier (`cash`).
    public var isProviderDriven: Bool { self != .cash }
}

/// Where a payment stands. Its lifecycle ends completed, failed, cancelled or expired; refunds
/// then take a completed one to `partially_refunded` and `refunded` (all of it given back).
public enum PaymentStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case pending, confirmed, processing, completed, failed, cancelled, expired
    case partiallyRefunded = "partially_refunded"
    case refunded

    /// Whether the lifecycle is over: a provider or the cashier moves it no further.
    public var isTerminal: Bool { progress == 3 }

    /// How far along the provider's path `pending → confirmed → processing → completed | failed`
    /// a status is: a provider's report only ever moves a payment forward along it.
    public var progress: Int {
        switch self {
        case .pending: 0
        case .confirmed: 1
        case .processing: 2
        case .completed, .failed, .cancelled, .expired, .partiallyRefunded, .refunded: 3
        }
    }

    /// The statuses a payment may move to from this one. A provider's reports may arrive late
    /// or out of order, so a payment may skip ahead (pending straight to completed); the
    /// cashier completes a cash payment from pending; refunds follow completion.
    public var next: [PaymentStatus] {
        switch self {
        case .pending: [.confirmed, .processing, .completed, .failed, .cancelled, .expired]
        case .confirmed: [.processing, .completed, .failed, .cancelled]
        case .processing: [.completed, .failed]
        case .completed, .partiallyRefunded: [.partiallyRefunded, .refunded]
        case .failed, .cancelled, .expired, .refunded: []
        }
    }

    /// Refuses a move to `status` that the machine does not allow: 422 `illegal_transition`
    /// with the status and the allowed next ones.
    public func check(moveTo status: PaymentStatus) throws(OrderlyError) {
        guard next.contains(status) else {
            throw OrderlyError(
                .illegalTransition, "\(ErrorTexts.withArticle(rawValue)) payment cannot become \(status.rawValue)",
                details: ["status": .string(rawValue), "allowed": .array(next.map { .string($0.rawValue) })])
        }
    }
}

/// One line of a payment: a catalog product priced by the catalog, or a free line typed by the
/// cashier. Prices include VAT; `total` is `unit_price × quantity` and `vat` the VAT in it.
public struct PaymentItem: Hashable, Sendable, Codable {
    public var productID: ProductID?
    public var name: String
    public var unitPrice: Int64
    public var quantity: Int64
    public var vatRateBP: Int
    public var total: Int64
    public var vat: Int64
    /// Whether stock was held for the line (a catalog product that tracks stock).
    public var tracked: Bool
    /// Units given back to stock by refunds so far.
    public var returnedQuantity: Int64

    /// A line of `quantity` (1 to `Payment.maximumQuantity`) at `unitPrice` (VAT included, at
    /// most `Payment.maximumAmount`); out-of-range values are named as the line's fields.
    public init(
        productID: ProductID?, name: String, unitPrice: Int64, quantity: Int64, vatRateBP: Int, tracked: Bool
    ) throws(OrderlyError) {
        guard (1...Payment.maximumQuantity).contains(quantity) else {
            throw OrderlyError.invalidFields(["quantity": "must be from 1 to \(Payment.maximumQuantity)"])
        }
        let amounts = try LineAmounts(
            type: .product, quantity: Int(quantity), unitPriceGross: unitPrice, vatRateBasisPoints: vatRateBP)
        self.productID = productID
        self.name = name
        self.unitPrice = unitPrice
        self.quantity = quantity
        self.vatRateBP = vatRateBP
        self.total = amounts.lineGross
        self.vat = amounts.lineVAT
        self.tracked = tracked
        self.returnedQuantity = 0
    }

    enum CodingKeys: String, CodingKey {
        case name, quantity, total, vat, tracked
        case productID = "product_id"
        case unitPrice = "unit_price"
        case vatRateBP = "vat_rate_bp"
        case returnedQuantity = "returned_quantity"
    }
}

/// Money taken by a store: `subtotal` for the goods (the items' totals, VAT included) or the
/// order, `tip` on top, `amount` the two together. All in `currency` minor units.
///
/// It is `pending` until the cashier confirms a cash payment or its provider reports on a card
/// one, and `expired` when `expires_at` passes while still pending. Stock for its tracked items
/// is held by the catalog reservation `reservation_id` until the payment ends: sold when it
/// completes, given back otherwise.
public struct Payment: Hashable, Sendable, Codable {
    public var id: PaymentID
    public var storeID: StoreID
    public var orderID: OrderID?
    /// The store's customer record the payment names (`Customer`), if any.
    public var customerID: CustomerID?
    /// The signed-up customer the payment is made out to, who sees it and is told of it: the
    /// account paying online, or the one the store's customer record is linked to.
    public var customerUserID: UserID?
    /// The NFC card that paid, for `nfc` payments.
    public var cardID: CardID?
    public var items: [PaymentItem]
    public var subtotal: Int64
    /// The VAT included in `subtotal`.
    public var vat: Int64
    public var tip: Int64
    public var amount: Int64
    public var currency: CurrencyCode
    public var method: PaymentMethod
    public var status: PaymentStatus
    /// The provider handling a card payment, and its reference for it, once it has reported.
    public var provider: String?
    public var providerRef: String?
    /// What the provider settled it in, when its `completed` report said (a stablecoin, say).
    public var settlement: Settlement?
    /// Who took the payment.
    public var staffID: UserID
    /// Whether it is cash a courier (`staff_id`) collected on delivering its order, which the
    /// courier then holds.
    public var collectedOnDelivery: Bool
    public var receiptID: ReceiptID?
    public var refundedAmount: Int64
    public var reservationID: ReservationID?
    /// Cash handed over, and what was given back.
    public var amountTendered: Int64?
    public var changeDue: Int64?
    /// When a pending payment expires.
    public var expiresAt: Date?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date
    public var completedAt: Date?

    public init(
        id: PaymentID, storeID: StoreID, orderID: OrderID?, customerID: CustomerID? = nil,
        customerUserID: UserID? = nil, cardID: CardID? = nil, items: [PaymentItem] = [],
        subtotal: Int64, vat: Int64 = 0, tip: Int64, currency: CurrencyCode, method: PaymentMethod,
        status: PaymentStatus, staffID: UserID, reservationID: ReservationID? = nil, expiresAt: Date? = nil,
        createdAt: Date
    ) {
        self.id = id
        self.storeID = storeID
        self.orderID = orderID
        self.customerID = customerID
        self.customerUserID = customerUserID
        self.cardID = cardID
        self.items = items
        self.subtotal = subtotal
        self.vat = vat
        self.tip = tip
        self.amount = subtotal + tip
        self.currency = currency
        self.method = method
        self.status = status
        self.staffID = staffID
        self.collectedOnDelivery = false
        self.refundedAmount = 0
        self.reservationID = reservationID
        self.expiresAt = expiresAt
        self.version = 1
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, items, subtotal, vat, tip, amount, currency, method, status, provider, version, settlement
        case storeID = "store_id"
        case orderID = "order_id"
        case customerID = "customer_id"
        case customerUserID = "customer_user_id"
        case cardID = "card_id"
        case providerRef = "provider_ref"
        case staffID = "staff_id"
        case collectedOnDelivery = "collected_on_delivery"
        case receiptID = "receipt_id"
        case refundedAmount = "refunded_amount"
        case reservationID = "reservation_id"
        case amountTendered = "amount_tendered"
        case changeDue = "change_due"
        case expiresAt = "expires_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case completedAt = "completed_at"
        case txHash = "tx_hash"
        case settledAmount = "settled_amount"
        case settledCurrency = "settled_currency"
    }

    /// Reads a stored or sent payment; one stored before items, versions and the lifecycle
    /// (a cash payment completed at once) reads with none, version 1, updated when created; its
    /// customer as `customer(from:)` says.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(PaymentID.self, forKey: .id)
        storeID = try container.decode(StoreID.self, forKey: .storeID)
        orderID = try container.decodeIfPresent(OrderID.self, forKey: .orderID)
        (customerID, customerUserID) = try Self.customer(from: decoder)
        cardID = try container.decodeIfPresent(CardID.self, forKey: .cardID)
        items = try container.decodeIfPresent([PaymentItem].self, forKey: .items) ?? []
        subtotal = try container.decode(Int64.self, forKey: .subtotal)
        vat = try container.decodeIfPresent(Int64.self, forKey: .vat) ?? 0
        tip = try container.decode(Int64.self, forKey: .tip)
        amount = try container.decode(Int64.self, forKey: .amount)
        currency = try container.decode(CurrencyCode.self, forKey: .currency)
        method = try container.decode(PaymentMethod.self, forKey: .method)
        status = try container.decode(PaymentStatus.self, forKey: .status)
        provider = try container.decodeIfPresent(String.self, forKey: .provider)
        providerRef = try container.decodeIfPresent(String.self, forKey: .providerRef)
        settlement = try container.decodeIfPresent(Settlement.self, forKey: .settlement)
        staffID = try container.decode(UserID.self, forKey: .staffID)
        collectedOnDelivery = try container.decodeIfPresent(Bool.self, forKey: .collectedOnDelivery) ?? false
        receiptID = try container.decodeIfPresent(ReceiptID.self, forKey: .receiptID)
        refundedAmount = try container.decode(Int64.self, forKey: .refundedAmount)
        reservationID = try container.decodeIfPresent(ReservationID.self, forKey: .reservationID)
        amountTendered = try container.decodeIfPresent(Int64.self, forKey: .amountTendered)
        changeDue = try container.decodeIfPresent(Int64.self, forKey: .changeDue)
        expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
        version = try container.decodeIfPresent(Int64.self, forKey: .version) ?? 1
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt) ?? createdAt
        completedAt = try container.decodeIfPresent(Date.self, forKey: .completedAt)
    }

    /// The customer record and the account of a payment as `decoder` holds it. A payment
    /// written before the stores' customer records has no `customer_user_id` (every payment
    /// since writes it, null or not): its `customer_id` named the account. What reads only some
    /// of a payment's fields reads these two with this.
    public static func customer(from decoder: any Decoder) throws -> (record: CustomerID?, account: UserID?) {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.customerUserID) else {
            return (nil, try container.decodeIfPresent(UserID.self, forKey: .customerID))
        }
        return (
            try container.decodeIfPresent(CustomerID.self, forKey: .customerID),
            try container.decodeIfPresent(UserID.self, forKey: .customerUserID)
        )
    }

    /// Writes the payment; `customer_user_id` always, null when nobody's, which is what tells it
    /// from a payment written before customer records (`init(from:)`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(storeID, forKey: .storeID)
        try container.encodeIfPresent(orderID, forKey: .orderID)
        try container.encodeIfPresent(customerID, forKey: .customerID)
        try container.encode(customerUserID, forKey: .customerUserID)
        try container.encodeIfPresent(cardID, forKey: .cardID)
        try container.encode(items, forKey: .items)
        try container.encode(subtotal, forKey: .subtotal)
        try container.encode(vat, forKey: .vat)
        try container.encode(tip, forKey: .tip)
        try container.encode(amount, forKey: .amount)
        try container.encode(currency, forKey: .currency)
        try container.encode(method, forKey: .method)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(provider, forKey: .provider)
        try container.encodeIfPresent(providerRef, forKey: .providerRef)
        try container.encodeIfPresent(settlement, forKey: .settlement)
        // The settlement's figures at the top level too, as a till reads them; read back from
        // `settlement` alone.
        try container.encodeIfPresent(settlement?.txHash, forKey: .txHash)
        try container.encodeIfPresent(settlement?.amount, forKey: .settledAmount)
        try container.encodeIfPresent(settlement?.currency, forKey: .settledCurrency)
        try container.encode(staffID, forKey: .staffID)
        if collectedOnDelivery { try container.encode(true, forKey: .collectedOnDelivery) }
        try container.encodeIfPresent(receiptID, forKey: .receiptID)
        try container.encode(refundedAmount, forKey: .refundedAmount)
        try container.encodeIfPresent(reservationID, forKey: .reservationID)
        try container.encodeIfPresent(amountTendered, forKey: .amountTendered)
        try container.encodeIfPresent(changeDue, forKey: .changeDue)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encode(version, forKey: .version)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encodeIfPresent(completedAt, forKey: .completedAt)
    }

    /// Moves the payment to `status` at `now`, as its machine allows (422 otherwise): the next
    /// version, completed at `now` when it completes, no expiry once it has left pending.
    public mutating func move(to status: PaymentStatus, at now: Date) throws(OrderlyError) {
        try self.status.check(moveTo: status)
        self.status = status
        if status == .completed { completedAt = now }
        if status != .pending { expiresAt = nil }
        version += 1
        updatedAt = now
    }

    /// What the payment pays of its order: its subtotal while it may still complete, or once
    /// completed its subtotal less what refunds gave back beyond the tip; nothing once it failed,
    /// was cancelled or expired.
    public var orderShare: Int64 {
        switch status {
        case .pending, .confirmed, .processing: subtotal
        case .completed, .partiallyRefunded, .refunded: max(0, min(subtotal, amount - refundedAmount))
        case .failed, .cancelled, .expired: 0
        }
    }

    /// What the payment pays of its order's tip, counted as `orderShare` counts: its tip while it
    /// may still complete, or once completed what refunds left of it (a refund gives back the tip
    /// first); nothing once it failed, was cancelled or expired. `orderShare + tipShare` is what a
    /// completed payment kept.
    public var tipShare: Int64 {
        switch status {
        case .pending, .confirmed, .processing: tip
        case .completed, .partiallyRefunded, .refunded: max(0, tip - refundedAmount)
        case .failed, .cancelled, .expired: 0
        }
    }

    /// Whether the payment completed: it took the money, whatever refunds gave back since.
    public var hasCompleted: Bool { [.completed, .partiallyRefunded, .refunded].contains(status) }

    /// The most `tip` or `amount` one payment may carry, in minor units.
    public static let maximumAmount: Int64 = 10_000_000_000
    /// The most items one payment holds, and the most units of one item.
    public static let maximumItems = 100
    public static let maximumQuantity: Int64 = 100_000
}

/// Money given back from a completed payment: `amount` of what is left, for `reason`; the
/// units of `restock_lines` go back to stock (`return` ledger entries).
public struct Refund: Hashable, Sendable, Codable {
    public var id: RefundID
    public var paymentID: PaymentID
    public var storeID: StoreID
    public var amount: Int64
    public var currency: CurrencyCode
    public var reason: String
    public var restockLines: [Reservation.Line]
    public var receiptID: ReceiptID
    public var staffID: UserID
    public var createdAt: Date

    public init(
        id: RefundID, paymentID: PaymentID, storeID: StoreID, amount: Int64, currency: CurrencyCode, reason: String,
        restockLines: [Reservation.Line], receiptID: ReceiptID, staffID: UserID, createdAt: Date
    ) {
        self.id = id
        self.paymentID = paymentID
        self.storeID = storeID
        self.amount = amount
        self.currency = currency
        self.reason = reason
        self.restockLines = restockLines
        self.receiptID = receiptID
        self.staffID = staffID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, amount, currency, reason
        case paymentID = "payment_id"
        case storeID = "store_id"
        case restockLines = "restock_lines"
        case receiptID = "receipt_id"
        case staffID = "staff_id"
        case createdAt = "created_at"
    }
}

/// What a provider settled a payment in, as its `completed` report says: an amount of a
/// currency or token (a decimal, as text, so that no precision is lost) and the transaction's
/// hash on its ledger.
public struct Settlement: Hashable, Sendable, Codable {
    public var currency: String
    public var amount: String
    public var txHash: String

    public init(currency: String, amount: String, txHash: String) {
        self.currency = currency
        self.amount = amount
        self.txHash = txHash
    }

    enum CodingKeys: String, CodingKey {
        case currency, amount
        case txHash = "tx_hash"
    }

    /// Names each field's problem as `<field>.<name>`: a currency of 2 to 12 capital letters
    /// or digits, an amount of up to 20 digits and up to 18 decimals, a hash of 1 to 128 letters
    /// or digits.
    public func validate(into problems: inout FieldProblems, field: String) {
        func matches(_ text: some StringProtocol, _ allowed: (Character) -> Bool, _ range: ClosedRange<Int>) -> Bool {
            range.contains(text.count) && text.allSatisfy { $0.isASCII && allowed($0) }
        }
        if !matches(currency, { $0.isUppercase || $0.isNumber }, 2...12) {
            problems.add("\(field).currency", "must be 2 to 12 capital letters or digits")
        }
        let parts = amount.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 2 || !matches(parts[0], \.isNumber, 1...20)
            || (parts.count == 2 && !matches(parts[1], \.isNumber, 1...18))
        {
            problems.add("\(field).amount", "must be a decimal number such as 12.50, at most 20 digits and 18 decimals")
        }
        if !matches(txHash, { $0.isLetter || $0.isNumber }, 1...128) {
            problems.add("\(field).tx_hash", "must be 1 to 128 letters or digits")
        }
    }
}

/// The record a customer gets for a completed payment (`sale`) or a refund (`refund`), numbered
/// per store from 1 across both.
public struct Receipt: Hashable, Sendable, Codable {
    public var id: ReceiptID
    public var number: Int64
    public var kind: Kind
    public var refundID: RefundID?
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
    /// The store's name and who rang it up, as the text prints them; nil when not known (a
    /// receipt issued before they were kept, a staff member the identity events had not told of).
    public var storeName: String?
    public var staffName: String?
    /// What it is for, as the text lists it: a sale's lines, or the units a refund put back to
    /// stock at the sale's prices (none for a refund of an amount alone); nil on a receipt issued
    /// before they were kept.
    public var items: [Item]?
    /// A sale's settlement by its provider, when it reported one: the transaction's hash and
    /// the amount and currency (or token) settled (`Settlement`).
    public var txHash: String?
    public var settledAmount: String?
    public var settledCurrency: String?

    public enum Kind: String, Hashable, Sendable, Codable {
        case sale, refund
    }

    /// A line of a receipt: `quantity` of `name` at `unitPrice` (VAT included, at `vatRateBP`).
    public struct Item: Hashable, Sendable, Codable {
        public var name: String
        public var quantity: Int64
        public var unitPrice: Int64
        public var total: Int64
        public var vatRateBP: Int

        public init(name: String, quantity: Int64, unitPrice: Int64, vatRateBP: Int) {
            self.name = name
            self.quantity = quantity
            self.unitPrice = unitPrice
            self.total = unitPrice * quantity
            self.vatRateBP = vatRateBP
        }

        enum CodingKeys: String, CodingKey {
            case name, quantity, total
            case unitPrice = "unit_price"
            case vatRateBP = "vat_rate_bp"
        }
    }

    public init(
        id: ReceiptID, number: Int64, kind: Kind = .sale, refundID: RefundID? = nil, storeID: StoreID,
        paymentID: PaymentID, orderID: OrderID?, subtotal: Int64, tip: Int64, total: Int64, currency: CurrencyCode,
        method: PaymentMethod, staffID: UserID, issuedAt: Date, text: String, storeName: String? = nil,
        staffName: String? = nil, items: [Item]? = nil, settlement: Settlement? = nil
    ) {
        self.id = id
        self.number = number
        self.kind = kind
        self.refundID = refundID
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
        self.storeName = storeName
        self.staffName = staffName
        self.items = items
        self.txHash = settlement?.txHash
        self.settledAmount = settlement?.amount
        self.settledCurrency = settlement?.currency
    }

    enum CodingKeys: String, CodingKey {
        case id, number, kind, subtotal, tip, total, currency, method, text, items
        case storeName = "store_name"
        case staffName = "staff_name"
        case refundID = "refund_id"
        case storeID = "store_id"
        case paymentID = "payment_id"
        case orderID = "order_id"
        case staffID = "staff_id"
        case issuedAt = "issued_at"
        case txHash = "tx_hash"
        case settledAmount = "settled_amount"
        case settledCurrency = "settled_currency"
    }
}

extension Receipt {
    /// Reads a stored receipt; one issued before refunds is a sale's.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(ReceiptID.self, forKey: .id),
            number: try container.decode(Int64.self, forKey: .number),
            kind: try container.decodeIfPresent(Kind.self, forKey: .kind) ?? .sale,
            refundID: try container.decodeIfPresent(RefundID.self, forKey: .refundID),
            storeID: try container.decode(StoreID.self, forKey: .storeID),
            paymentID: try container.decode(PaymentID.self, forKey: .paymentID),
            orderID: try container.decodeIfPresent(OrderID.self, forKey: .orderID),
            subtotal: try container.decode(Int64.self, forKey: .subtotal),
            tip: try container.decode(Int64.self, forKey: .tip),
            total: try container.decode(Int64.self, forKey: .total),
            currency: try container.decode(CurrencyCode.self, forKey: .currency),
            method: try container.decode(PaymentMethod.self, forKey: .method),
            staffID: try container.decode(UserID.self, forKey: .staffID),
            issuedAt: try container.decode(Date.self, forKey: .issuedAt),
            text: try container.decode(String.self, forKey: .text),
            storeName: try container.decodeIfPresent(String.self, forKey: .storeName),
            staffName: try container.decodeIfPresent(String.self, forKey: .staffName),
            items: try container.decodeIfPresent([Item].self, forKey: .items))
        txHash = try container.decodeIfPresent(String.self, forKey: .txHash)
        settledAmount = try container.decodeIfPresent(String.self, forKey: .settledAmount)
        settledCurrency = try container.decodeIfPresent(String.self, forKey: .settledCurrency)
    }
}
