public import Domain
public import Foundation
public import WireContract

/// The payments service's methods.
public enum PaymentsAPI {
    public static let service = "payments"
    /// Only the gateway calls it.
    public static let callers = WireCallers([GatewayAPI.service: WireCallers.everything])
    /// Admins and the store's users (`store_id`); needs an idempotency key. Prices catalog
    /// items from the catalog and holds their stock; the payment starts `pending`.
    public static let createPayment = WireMethod<PaymentDraft, Payment>("payments.create", safeToRetry: false)
    public static let getPayment = WireMethod<ResourceRef<PaymentID>, Payment>("payments.get", safeToRetry: true)
    /// The cashier completes a pending cash payment with the cash handed over.
    public static let confirmCash = WireMethod<CashConfirmation, Payment>("payments.confirm", safeToRetry: false)
    /// Staff cancel a pending or confirmed payment.
    public static let cancelPayment = WireMethod<ResourceRef<PaymentID>, Payment>(
        "payments.cancel", safeToRetry: false)
    /// A payment provider's signed report, as the gateway received it; no principal.
    public static let providerEvent = WireMethod<SignedProviderEvent, ProviderEventOutcome>(
        "payments.provider_events", safeToRetry: true)
    public static let getReceipt = WireMethod<ResourceRef<ReceiptID>, Receipt>(
        "payments.receipts.get", safeToRetry: true)
    /// Admins and the store's users: a store's payments, newest first, filtered.
    public static let listPayments = WireMethod<PaymentListRequest, Page<Payment>>("payments.list", safeToRetry: true)
    /// Admins and the store's users: a store's receipts, newest first; one `number` for a reprint.
    public static let listReceipts = WireMethod<ReceiptListRequest, Page<Receipt>>(
        "payments.receipts.list", safeToRetry: true)
    /// Store users clock themselves in; owners and managers their staff, admins anyone.
    public static let clockIn = WireMethod<ClockRequest, Shift>("payments.shifts.clock_in", safeToRetry: false)
    public static let clockOut = WireMethod<ClockRequest, Shift>("payments.shifts.clock_out", safeToRetry: false)
    /// Admins and the store's owners and managers: its shifts, newest first.
    public static let listShifts = WireMethod<ShiftListRequest, Page<Shift>>("payments.shifts.list", safeToRetry: true)
    /// The open shifts of some users (the gateway's `is_clocked_in`).
    public static let openShifts = WireMethod<OpenShiftsRequest, [Shift]>("payments.shifts.open", safeToRetry: true)
    /// Admins, and the store's owners and managers: what the store took over some days.
    public static let stats = WireMethod<StatsRequest, StoreStats>("payments.stats", safeToRetry: true)
    /// Admins, and the store's owners and managers: each staff member's shifts, hours and sales
    /// over some days.
    public static let shiftSummary = WireMethod<StatsRequest, ShiftSummary>(
        "payments.shifts.summary", safeToRetry: true)
    /// Admins and the store's users: the store's payments written after a cursor (staff: those
    /// they took), for a till that was offline.
    public static let paymentChanges = WireMethod<PaymentChangesRequest, PaymentChangesPage>(
        "payments.changes", safeToRetry: true)
    /// Staff give back part or all of what is left of a completed payment; needs an
    /// idempotency key.
    public static let refund = WireMethod<RefundRequest, Refund>("payments.refunds.create", safeToRetry: false)
    /// Whether the caller may cancel the order, as far as its payments go: a cancel refunds a
    /// customer's completed card payments in full, which only whoever may refund that amount
    /// does (`AccessPolicy.mayRefundByCancelling`; 422 `refund_not_allowed` otherwise). The
    /// gateway asks before it forwards a cancel; the refund itself follows the cancel's event.
    public static let checkCancelRefund = WireMethod<ResourceRef<OrderID>, CancelRefundCheck>(
        "payments.refunds.check_cancel", safeToRetry: true)

    /// How long a payment stays pending unless its request says otherwise (15 minutes), and the
    /// longest it may (an hour).
    public static let defaultPendingSeconds = 900
    public static let maximumPendingSeconds = 3_600
    /// How long the stock held for a payment outlives the payment's own expiry: time for the
    /// catalog to see the payment move on before the hold lapses by itself.
    public static let stockGraceSeconds = 600
    /// How far a provider's signature time may be from ours, either way (five minutes).
    public static let signatureToleranceSeconds = 300

    /// The events the payments service publishes on `orderly:events:payments`, each with the
    /// payment as its payload: one when it is created and one per status it reaches.
    public enum Events {
        public static let created = "payment.created"
        public static let confirmed = "payment.confirmed"
        public static let processing = "payment.processing"
        public static let completed = "payment.completed"
        public static let failed = "payment.failed"
        public static let cancelled = "payment.cancelled"
        public static let expired = "payment.expired"
        /// A refund of a completed payment; its payload is a `PaymentRefunded`.
        public static let refunded = "payment.refunded"
        /// A shift began or ended; the shift is the payload.
        public static let clockedIn = "shift.clocked_in"
        public static let clockedOut = "shift.clocked_out"
        /// A card was linked to a customer record (registered with one, or changed to one); its
        /// payload is a `CardLinked`.
        public static let cardLinked = "card.linked"

        /// The event of a payment reaching `status` in its lifecycle (refunds have `refunded`).
        public static func reached(_ status: PaymentStatus) -> String {
            status == .pending ? created : "payment.\(status.rawValue)"
        }
    }
}

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
}

/// A payment request as `PaymentDraft.validated()` found it.
public struct ValidPaymentDraft: Sendable {
    public enum Line: Sendable {
        case product(ProductID, quantity: Int64)
        case free(name: String, unitPrice: Int64, quantity: Int64, vatRateBP: Int)
    }

    public var lines: [Line]
    public var tip: Int64
    public var method: PaymentMethod
    /// The card tapped, normalized (`Card.normalizedUID`), for an nfc payment.
    public var cardUID: String?
    public var pendingSeconds: Int
}

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

/// A provider's report as it reached the gateway: the body exactly as sent (the signature
/// covers its bytes) and the `Orderly-Signature` header.
public struct SignedProviderEvent: Codable, Sendable, Hashable {
    public var body: String
    public var signature: String?

    public init(body: String, signature: String?) {
        self.body = body
        self.signature = signature
    }
}

/// What a provider reports about a payment: `confirmed`, `processing`, `completed` or `failed`,
/// its reference for it, and when it happened. `id` is the provider's for the event: the same
/// report sent again changes nothing.
public struct ProviderEvent: Codable, Sendable, Hashable {
    public var id: String?
    public var provider: String?
    public var paymentID: PaymentID?
    public var type: PaymentStatus?
    public var providerRef: String?
    /// What the provider took, in minor units of `currency`: required on `completed`, and
    /// checked against the payment wherever it is given.
    public var amount: Int64?
    public var currency: CurrencyCode?
    /// What the payment was settled in; only on `completed`.
    public var settlement: Settlement?
    public var at: Date?

    public init(
        id: String?, provider: String?, paymentID: PaymentID?, type: PaymentStatus?, providerRef: String?,
        amount: Int64? = nil, currency: CurrencyCode? = nil, settlement: Settlement? = nil, at: Date?
    ) {
        self.id = id
        self.provider = provider
        self.paymentID = paymentID
        self.type = type
        self.providerRef = providerRef
        self.amount = amount
        self.currency = currency
        self.settlement = settlement
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case id, provider, type, at, amount, currency, settlement
        case paymentID = "payment_id"
        case providerRef = "provider_ref"
    }

    /// The statuses a provider reports.
    public static let types: [PaymentStatus] = [.confirmed, .processing, .completed, .failed]
}

/// What became of a provider's report: `applied` (the payment moved), `duplicate` (this event
/// id was received before) or `ignored` (it arrived after the payment had moved past it, or
/// had ended otherwise), with the payment's status after it.
public struct ProviderEventOutcome: Codable, Sendable, Hashable {
    public var outcome: Outcome
    public var status: PaymentStatus

    public enum Outcome: String, Codable, Sendable, Hashable {
        case applied, duplicate, ignored
    }

    public init(outcome: Outcome, status: PaymentStatus) {
        self.outcome = outcome
        self.status = status
    }
}

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

/// The payload of `payment.refunded`: the payment after the refund, and the refund.
public struct PaymentRefunded: Codable, Sendable, Hashable {
    public var payment: Payment
    public var refund: Refund

    public init(payment: Payment, refund: Refund) {
        self.payment = payment
        self.refund = refund
    }
}

/// Which of a store's payments to list: in any of `statuses` and `methods`, taken by
/// `staffID`, created from `from` (inclusive) to `to` (exclusive); newest first.
public struct PaymentListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var statuses: [PaymentStatus]?
    public var methods: [PaymentMethod]?
    public var staffID: UserID?
    public var from: Date?
    public var to: Date?
    public var page: PageRequest

    public init(
        storeID: StoreID, statuses: [PaymentStatus]? = nil, methods: [PaymentMethod]? = nil, staffID: UserID? = nil,
        from: Date? = nil, to: Date? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.statuses = statuses
        self.methods = methods
        self.staffID = staffID
        self.from = from
        self.to = to
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case statuses, methods, from, to, page
        case storeID = "store_id"
        case staffID = "staff_id"
    }
}

/// A store's receipts, newest first; with `number`, that one (a reprint).
public struct ReceiptListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var number: Int64?
    public var page: PageRequest

    public init(storeID: StoreID, number: Int64? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.number = number
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case number, page
        case storeID = "store_id"
    }
}

/// Clocking in or out: `user_id` (the caller when absent), with the cash the drawer opens with
/// (`opening_cash`, 0 when absent) or the cash counted at the end (`counted_cash`, required).
public struct ClockRequest: Codable, Sendable, Hashable {
    public var userID: UserID?
    public var openingCash: Int64?
    public var countedCash: Int64?

    public init(userID: UserID? = nil, openingCash: Int64? = nil, countedCash: Int64? = nil) {
        self.userID = userID
        self.openingCash = openingCash
        self.countedCash = countedCash
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case openingCash = "opening_cash"
        case countedCash = "counted_cash"
    }
}

/// A store's shifts, newest first: one user's with `userID`, only the open or the ended ones
/// with `open`.
public struct ShiftListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var userID: UserID?
    public var open: Bool?
    public var page: PageRequest

    public init(storeID: StoreID, userID: UserID? = nil, open: Bool? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.userID = userID
        self.open = open
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case open, page
        case storeID = "store_id"
        case userID = "user_id"
    }
}

/// The users whose open shifts to read.
public struct OpenShiftsRequest: Codable, Sendable, Hashable {
    public var userIDs: [UserID]

    public init(userIDs: [UserID]) { self.userIDs = userIDs }

    enum CodingKeys: String, CodingKey { case userIDs = "user_ids" }
}

/// A store's statistics over the days `from` to `to` (inclusive, `YYYY-MM-DD` in the store's
/// time zone; at most 366 days).
public struct StatsRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var from: String?
    public var to: String?

    public init(storeID: StoreID, from: String?, to: String?) {
        self.storeID = storeID
        self.from = from
        self.to = to
    }

    enum CodingKeys: String, CodingKey {
        case from, to
        case storeID = "store_id"
    }
}

/// What a store took over some days: `revenue` is what completed payments took (tips included)
/// less what refunds gave back; `average_ticket` is what a completed payment took on average.
/// A payment counts on the day it completed, a refund on the day it was given, each day in the
/// store's time zone. By staff member and method, refunds count with the payment they give
/// back from.
public struct StoreStats: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var from: String
    public var to: String
    public var timezone: String
    public var totals: Figures
    public var days: [Day]
    public var staff: [StaffFigures]
    public var methods: [MethodFigures]
    public var topProducts: [ProductFigures]

    public struct Figures: Codable, Sendable, Hashable {
        public var revenue: Int64
        public var salesCount: Int64
        public var averageTicket: Int64
        public var tips: Int64
        public var refunds: Int64
        public var refundsCount: Int64

        public init(sales: Int64 = 0, takings: Int64 = 0, tips: Int64 = 0, refunds: Int64 = 0, refundsCount: Int64 = 0)
        {
            self.revenue = takings - refunds
            self.salesCount = sales
            self.averageTicket = sales > 0 ? takings / sales : 0
            self.tips = tips
            self.refunds = refunds
            self.refundsCount = refundsCount
        }

        enum CodingKeys: String, CodingKey {
            case revenue, tips, refunds
            case salesCount = "sales_count"
            case averageTicket = "average_ticket"
            case refundsCount = "refunds_count"
        }
    }

    public struct Day: Codable, Sendable, Hashable {
        public var date: String
        public var figures: Figures

        public init(date: String, figures: Figures) {
            self.date = date
            self.figures = figures
        }

        enum CodingKeys: String, CodingKey { case date, figures }
    }

    public struct StaffFigures: Codable, Sendable, Hashable {
        public var staffID: UserID
        public var name: String?
        public var figures: Figures

        public init(staffID: UserID, name: String?, figures: Figures) {
            self.staffID = staffID
            self.name = name
            self.figures = figures
        }

        enum CodingKeys: String, CodingKey {
            case name, figures
            case staffID = "staff_id"
        }
    }

    public struct MethodFigures: Codable, Sendable, Hashable {
        public var method: PaymentMethod
        public var figures: Figures

        public init(method: PaymentMethod, figures: Figures) {
            self.method = method
            self.figures = figures
        }
    }

    /// A product (or a typed line, by name) by units sold.
    public struct ProductFigures: Codable, Sendable, Hashable {
        public var productID: ProductID?
        public var name: String
        public var quantity: Int64
        public var revenue: Int64

        public init(productID: ProductID?, name: String, quantity: Int64, revenue: Int64) {
            self.productID = productID
            self.name = name
            self.quantity = quantity
            self.revenue = revenue
        }

        enum CodingKeys: String, CodingKey {
            case name, quantity, revenue
            case productID = "product_id"
        }
    }

    public init(
        storeID: StoreID, from: String, to: String, timezone: String, totals: Figures, days: [Day],
        staff: [StaffFigures], methods: [MethodFigures], topProducts: [ProductFigures]
    ) {
        self.storeID = storeID
        self.from = from
        self.to = to
        self.timezone = timezone
        self.totals = totals
        self.days = days
        self.staff = staff
        self.methods = methods
        self.topProducts = topProducts
    }

    enum CodingKeys: String, CodingKey {
        case from, to, timezone, totals, days, staff, methods
        case storeID = "store_id"
        case topProducts = "top_products"
    }
}

/// The store's payments written after `since` ("0" for every one).
public typealias PaymentChangesRequest = StoreChangesRequest

/// Payments as they are now, each written after the cursor asked from, oldest change first.
public typealias PaymentChangesPage = ChangesPage<Payment>

/// Each staff member's time and sales over some days (`YYYY-MM-DD` in the store's time zone):
/// the shifts they clocked in to on those days and the hours they worked in them (an open
/// shift up to now), the payments they completed and what they took less refunds, as the
/// statistics count them.
public struct ShiftSummary: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var from: String
    public var to: String
    public var timezone: String
    public var staff: [Member]

    public struct Member: Codable, Sendable, Hashable {
        public var staffID: UserID
        public var name: String?
        public var hoursWorked: Double
        public var shiftsCount: Int
        public var salesCount: Int64
        public var revenue: Int64

        public init(
            staffID: UserID, name: String?, hoursWorked: Double, shiftsCount: Int, salesCount: Int64, revenue: Int64
        ) {
            self.staffID = staffID
            self.name = name
            self.hoursWorked = hoursWorked
            self.shiftsCount = shiftsCount
            self.salesCount = salesCount
            self.revenue = revenue
        }

        enum CodingKeys: String, CodingKey {
            case name, revenue
            case staffID = "staff_id"
            case hoursWorked = "hours_worked"
            case shiftsCount = "shifts_count"
            case salesCount = "sales_count"
        }
    }

    public init(storeID: StoreID, from: String, to: String, timezone: String, staff: [Member]) {
        self.storeID = storeID
        self.from = from
        self.to = to
        self.timezone = timezone
        self.staff = staff
    }

    enum CodingKeys: String, CodingKey {
        case from, to, timezone, staff
        case storeID = "store_id"
    }
}

/// What cancelling an order would refund of its payments: `amount` in `currency` (nil when
/// nothing), which the caller may.
public struct CancelRefundCheck: Codable, Sendable, Hashable {
    public var amount: Int64
    public var currency: CurrencyCode?

    public init(amount: Int64, currency: CurrencyCode?) {
        self.amount = amount
        self.currency = currency
    }
}
