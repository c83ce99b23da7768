public import Foundation

/// How much of an order is paid: nothing, part, all, or all given back.
public enum OrderPaymentStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case unpaid
    case partiallyPaid = "partially_paid"
    case paid, refunded
}

/// Where an order's status stands. The standard workflow's orders go `pending → accepted →
/// preparing → ready`, then out for delivery and delivered, or collected; the repair
/// workflow's go `booked_in → awaiting_parts → in_repair → ready`, then collected or despatched
/// (`Order+StatusMachine`).
public enum OrderStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case pending, accepted, preparing, ready
    case outForDelivery = "out_for_delivery"
    case delivered, collected, cancelled
    case bookedIn = "booked_in"
    case awaitingParts = "awaiting_parts"
    case inRepair = "in_repair"
    case despatched

    /// Whether the order is done with: delivered, collected, despatched or cancelled.
    public var isFinal: Bool { [.delivered, .collected, .despatched, .cancelled].contains(self) }

    /// Whether the order is still the store's: not yet out for delivery or done with. Its
    /// fields and lines change (`Order.isEditable`) and it can be cancelled only then.
    public var isInStore: Bool { !isFinal && self != .outForDelivery }
}

/// Which status machine an order follows. `standard`: a kitchen's or a shop's order, prepared
/// and then delivered by a courier or collected. `repair`: a customer's device booked in for
/// repair, perhaps waiting for parts, repaired, and then collected or despatched by the store
/// itself; never in the couriers' pool.
public enum OrderWorkflow: String, Hashable, Sendable, Codable, CaseIterable {
    case standard, repair

    /// The statuses its orders pass through, the first where they start (a standard order the
    /// store dispatches on creation starts `ready`).
    public var statuses: [OrderStatus] {
        switch self {
        case .standard: [.pending, .accepted, .preparing, .ready, .outForDelivery, .delivered, .collected, .cancelled]
        case .repair: [.bookedIn, .awaitingParts, .inRepair, .ready, .collected, .despatched, .cancelled]
        }
    }
}

/// How an order reaches its recipient.
public enum Fulfillment: String, Hashable, Sendable, Codable, CaseIterable {
    case delivery, pickup
}

/// A delivery or pickup order of one store.
public struct Order: Hashable, Sendable, Codable {
    public var id: OrderID
    /// Sequential per store, from 1.
    public var number: Int64
    public var storeID: StoreID
    public var fulfillment: Fulfillment
    public var status: OrderStatus
    /// `repair` for the repair workflow; nil (standard) on orders stored before there was a choice.
    public var workflow: OrderWorkflow?
    public var version: Int64
    public var recipientFirstName: String?
    public var recipientLastName: String?
    public var phone: String?
    public var street: String?
    public var buildingNo: String?
    public var floor: String?
    public var apartment: String?
    public var city: String?
    public var deliveryNotes: String?
    /// The store's address.
    public var pickupAddress: String?
    /// The recipient's address on one line.
    public var deliveryAddress: String?
    public var boxesCount: Int
    public var boxesMultiplier: Int
    /// In `currency` minor units; 0 for pickup orders.
    public var deliveryFee: Int64
    public var currency: CurrencyCode
    public var customerName: String?
    public var dueAt: Date?
    public var notes: String?
    public var courierID: UserID?
    public var claimedAt: Date?
    public var deliveredAt: Date?
    /// Why it was cancelled, when it was.
    public var cancellationReason: String?
    /// When the store archived it (a pending or cancelled order, taken off its lists and kept).
    public var archivedAt: Date?
    public var items: [OrderItem]
    public var itemsNet: Int64
    public var itemsVAT: Int64
    public var itemsGross: Int64
    /// `itemsGross + deliveryFee`.
    public var total: Int64
    /// What completed payments for the order pay of `total` (a payment's subtotal, less what
    /// refunds of it gave back beyond its tip); nil
    /// (0, as callers are shown) until the first payment.
    public var paidAmount: Int64?
    /// Nil (`unpaid`, as callers are shown) until the first payment.
    public var paymentStatus: OrderPaymentStatus?
    public var createdBy: UserID
    public var createdAt: Date
    public var updatedAt: Date
    /// A customer's order (`POST /v1/orders` by a customer): the customer, who is its recipient.
    public var customerID: UserID?
    /// How a customer's order is paid; nil for a store's order.
    public var paymentMethod: OrderPaymentMethod?
    /// A customer's tip for the courier who delivers it, paid with the order beside `total`.
    public var tip: Int64?
    /// A customer's note to the store.
    public var customerNotes: String?
    /// The store's name and phone when the customer ordered, for their tracking screen.
    public var storeName: String?
    public var storePhone: String?
    /// The first name of the courier who claimed it, for the customer's tracking screen.
    public var courierFirstName: String?
    /// Whether the store accepts it by itself: at once, or for a card order once it is paid.
    public var autoAccept: Bool?
    /// What the courier collected in cash at the door, for a cash-on-delivery order.
    public var cashCollected: Int64?
    /// When an unpaid card order is cancelled by the server; nil once paid.
    public var payBy: Date?
    /// What the caller can do now; set on the copy a caller receives, never stored.
    public var allowedActions: [OrderAction]?
    /// Whether the caller may change the order's fields and items now; set on the copy a
    /// caller receives, never stored.
    public var canEdit: Bool?

    public init(
        id: OrderID, number: Int64, storeID: StoreID, status: OrderStatus, version: Int64, draft: ValidOrderDraft,
        pickupAddress: String?, quote: DeliveryQuote, currency: CurrencyCode,
        createdBy: UserID, createdAt: Date
    ) {
        self.id = id
        self.number = number
        self.storeID = storeID
        self.fulfillment = draft.fulfillment
        self.status = status
        self.workflow = draft.workflow
        self.version = version
        self.pickupAddress = pickupAddress
        self.boxesCount = 0
        self.boxesMultiplier = 0
        self.deliveryFee = 0
        self.currency = currency
        self.items = []
        self.itemsNet = 0
        self.itemsVAT = 0
        self.itemsGross = 0
        self.total = 0
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = createdAt
        assign(draft, quote: quote)
    }

    /// Takes the order's own fields from a validated draft and the fee from its quote.
    public mutating func assign(_ draft: ValidOrderDraft, quote: DeliveryQuote) {
        fulfillment = draft.fulfillment
        recipientFirstName = draft.recipientFirstName
        recipientLastName = draft.recipientLastName
        phone = draft.phone
        street = draft.street
        buildingNo = draft.buildingNo
        floor = draft.floor
        apartment = draft.apartment
        city = draft.city
        deliveryNotes = draft.deliveryNotes
        deliveryAddress = draft.deliveryAddress
        boxesCount = draft.boxesCount
        boxesMultiplier = quote.multiplier
        deliveryFee = quote.fee
        customerName = draft.customerName
        dueAt = draft.dueAt
        notes = draft.notes
        total = itemsGross + deliveryFee
    }

    /// Whether it follows the repair workflow.
    public var isRepair: Bool { workflow == .repair }

    /// The order's own fields as a draft, to merge a change into.
    public var draft: OrderDraft {
        OrderDraft(
            workflow: workflow ?? .standard, fulfillment: fulfillment, recipientFirstName: recipientFirstName,
            recipientLastName: recipientLastName,
            phone: phone, street: street, buildingNo: buildingNo, floor: floor, apartment: apartment, city: city,
            deliveryNotes: deliveryNotes, boxesCount: fulfillment == .pickup && boxesCount == 0 ? nil : boxesCount,
            customerName: customerName, dueAt: dueAt, notes: notes)
    }

    /// The order's fields with `changes` applied (a field absent from `changes` keeps its
    /// value; an empty text clears an optional one), validated as a whole.
    public func merging(_ changes: OrderDraft) throws(OrderlyError) -> ValidOrderDraft {
        var problems = FieldProblems()
        if let id = changes.id, id != self.id { problems.add("id", "cannot change") }
        if let store = changes.storeID, store != storeID { problems.add("store_id", "cannot change") }
        if let workflow = changes.workflow, workflow != self.workflow ?? .standard {
            problems.add("workflow", "cannot change")
        }
        try problems.check()
        var merged = draft
        if let value = changes.fulfillment { merged.fulfillment = value }
        if let value = changes.recipientFirstName { merged.recipientFirstName = value }
        if let value = changes.recipientLastName { merged.recipientLastName = value }
        if let value = changes.phone { merged.phone = value }
        if let value = changes.street { merged.street = value }
        if let value = changes.buildingNo { merged.buildingNo = value }
        if let value = changes.floor { merged.floor = value }
        if let value = changes.apartment { merged.apartment = value }
        if let value = changes.city { merged.city = value }
        if let value = changes.deliveryNotes { merged.deliveryNotes = value }
        if let value = changes.boxesCount { merged.boxesCount = value }
        if let value = changes.customerName { merged.customerName = value }
        if let value = changes.dueAt { merged.dueAt = value }
        if let value = changes.notes { merged.notes = value }
        return try merged.validated()
    }

    enum CodingKeys: String, CodingKey {
        case id, number, fulfillment, status, workflow, version, phone, street, floor, apartment, city, currency, notes
        case total
        case storeID = "store_id"
        case recipientFirstName = "recipient_first_name"
        case recipientLastName = "recipient_last_name"
        case buildingNo = "building_no"
        case deliveryNotes = "delivery_notes"
        case pickupAddress = "pickup_address"
        case deliveryAddress = "delivery_address"
        case boxesCount = "boxes_count"
        case boxesMultiplier = "boxes_multiplier"
        case deliveryFee = "delivery_fee"
        case customerName = "customer_name"
        case dueAt = "due_at"
        case courierID = "courier_id"
        case claimedAt = "claimed_at"
        case deliveredAt = "delivered_at"
        case cancellationReason = "cancellation_reason"
        case archivedAt = "archived_at"
        case items
        case itemsNet = "items_net"
        case itemsVAT = "items_vat"
        case itemsGross = "items_gross"
        case createdBy = "created_by"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case allowedActions = "allowed_actions"
        case canEdit = "can_edit"
        case paidAmount = "paid_amount"
        case paymentStatus = "payment_status"
        case customerID = "customer_id"
        case paymentMethod = "payment_method"
        case tip
        case customerNotes = "customer_notes"
        case storeName = "store_name"
        case storePhone = "store_phone"
        case courierFirstName = "courier_first_name"
        case autoAccept = "auto_accept"
        case cashCollected = "cash_collected"
        case payBy = "pay_by"
    }

    /// How long a customer has to pay for a card order before the server cancels it.
    public static let cardPaymentWindow: TimeInterval = 15 * 60

    /// The most card orders one customer may leave unpaid at once: each holds its stock until it
    /// is paid or its time runs out, so that a stranger cannot empty a store's shelves with
    /// orders never paid for.
    public static let maximumUnpaidCardOrders = 3

    /// Refuses a customer's new card order when they have `unpaid` card orders already (422
    /// `too_many_unpaid`).
    public static func checkUnpaid(_ unpaid: Int) throws(OrderlyError) {
        guard unpaid >= maximumUnpaidCardOrders else { return }
        throw OrderlyError(
            .tooManyUnpaid,
            "you have \(unpaid) card orders waiting to be paid; pay or cancel one before ordering again",
            details: ["unpaid": .int(Int64(unpaid))])
    }

    /// Whether it is a card order not paid in full yet, which the store cannot accept.
    public var awaitsPayment: Bool { Self.awaitsPayment(paymentMethod, paymentStatus) }

    /// Whether an order paid by `method`, its payments at `status` (nil: none yet), is a card
    /// order not paid in full: for readers of an order event that decode only these two fields.
    public static func awaitsPayment(_ method: OrderPaymentMethod?, _ status: OrderPaymentStatus?) -> Bool {
        method == .card && (status ?? .unpaid) != .paid
    }

    /// What is left to pay of `total` (the tip aside).
    public var leftToPay: Int64 { max(0, total - (paidAmount ?? 0)) }

    /// What a courier collected delivering this order, as recorded: for a cash-on-delivery
    /// order not paid yet, `cash`, which must be at least what is left to pay and the tip (422
    /// `cash_required` naming `cash_collected`); for any other order nothing, and `cash` is
    /// refused (400).
    public func collectedCash(_ cash: Int64?) throws(OrderlyError) -> Int64? {
        guard paymentMethod == .cashOnDelivery, leftToPay > 0 else {
            guard cash == nil else {
                throw OrderlyError.invalidFields(["cash_collected": "is only for an unpaid cash-on-delivery order"])
            }
            return nil
        }
        let owed = leftToPay + (tip ?? 0)
        guard let cash, cash >= owed else {
            throw OrderlyError(
                .cashRequired, "collect \(owed) in cash for this order before delivering it",
                details: ["cash_collected": .string("must be at least \(owed), what is left to pay and the tip")])
        }
        return cash
    }

    /// Sets what the order's payments pay of it now; `refunded` when payments were made and
    /// refunds took them back to nothing.
    public mutating func setPaid(_ paid: Int64, anyPayment: Bool) {
        paidAmount = paid
        paymentStatus =
            if paid <= 0 { anyPayment ? .refunded : .unpaid } else if paid >= total { .paid } else { .partiallyPaid }
    }
    /// The recipient's address on one line, from the order's own fields (`delivery_address`).
    public var formattedDeliveryAddress: String? {
        Self.addressLine(
            fulfillment: fulfillment, street: street, buildingNo: buildingNo, floor: floor, apartment: apartment,
            city: city)
    }

    /// `Herzl 12, floor 3, apt. 7, Tel Aviv`; nil for a pickup or without street and building.
    public static func addressLine(
        fulfillment: Fulfillment, street: String?, buildingNo: String?, floor: String?, apartment: String?,
        city: String?
    ) -> String? {
        guard fulfillment == .delivery, let street, let buildingNo else { return nil }
        var parts = ["\(street) \(buildingNo)"]
        if let floor { parts.append("floor \(floor)") }
        if let apartment { parts.append("apt. \(apartment)") }
        if let city { parts.append(city) }
        return parts.joined(separator: ", ")
    }
}

/// An order as a client sends it to be created: every field optional here, so that validation
/// can name every missing one at once.
public struct OrderDraft: Hashable, Sendable, Codable {
    /// Chosen by the client for orders created offline; the server picks one otherwise.
    public var id: OrderID?
    /// Only admins name the store; store users create orders in their own.
    public var storeID: StoreID?
    /// The store's `workflow` unless given; fixed once the order exists.
    public var workflow: OrderWorkflow?
    public var fulfillment: Fulfillment?
    public var recipientFirstName: String?
    public var recipientLastName: String?
    public var phone: String?
    public var street: String?
    public var buildingNo: String?
    public var floor: String?
    public var apartment: String?
    public var city: String?
    public var deliveryNotes: String?
    public var boxesCount: Int?
    public var customerName: String?
    public var dueAt: Date?
    public var notes: String?

    public init(
        id: OrderID? = nil, storeID: StoreID? = nil, workflow: OrderWorkflow? = nil, fulfillment: Fulfillment? = nil,
        recipientFirstName: String? = nil, recipientLastName: String? = nil, phone: String? = nil,
        street: String? = nil, buildingNo: String? = nil, floor: String? = nil, apartment: String? = nil,
        city: String? = nil, deliveryNotes: String? = nil, boxesCount: Int? = nil, customerName: String? = nil,
        dueAt: Date? = nil, notes: String? = nil
    ) {
        self.id = id
        self.storeID = storeID
        self.workflow = workflow
        self.fulfillment = fulfillment
        self.recipientFirstName = recipientFirstName
        self.recipientLastName = recipientLastName
        self.phone = phone
        self.street = street
        self.buildingNo = buildingNo
        self.floor = floor
        self.apartment = apartment
        self.city = city
        self.deliveryNotes = deliveryNotes
        self.boxesCount = boxesCount
        self.customerName = customerName
        self.dueAt = dueAt
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case id, workflow, fulfillment, phone, street, floor, apartment, city, notes
        case storeID = "store_id"
        case recipientFirstName = "recipient_first_name"
        case recipientLastName = "recipient_last_name"
        case buildingNo = "building_no"
        case deliveryNotes = "delivery_notes"
        case boxesCount = "boxes_count"
        case customerName = "customer_name"
        case dueAt = "due_at"
    }

    /// Checks the draft as a whole: a delivery order needs the recipient's first and last name,
    /// phone, street, building number and at least one box. Every problem is reported. Without a
    /// `workflow`, the order follows `storeWorkflow`.
    public func validated(storeWorkflow: OrderWorkflow = .standard) throws(OrderlyError) -> ValidOrderDraft {
        var problems = FieldProblems()
        let fulfillment = self.fulfillment ?? .delivery
        let delivery = fulfillment == .delivery
        let first = problems.optionalText(recipientFirstName, "recipient_first_name", required: delivery)
        let last = problems.optionalText(recipientLastName, "recipient_last_name", required: delivery)
        let phone = problems.phone(phone, "phone", required: delivery)
        let street = problems.optionalText(street, "street", required: delivery)
        let building = problems.optionalText(buildingNo, "building_no", maximumLength: 20, required: delivery)
        let boxes = problems.integer(boxesCount, "boxes_count", in: 1...10_000, required: delivery)
        let draft = ValidOrderDraft(
            id: id, storeID: storeID, workflow: workflow ?? storeWorkflow, fulfillment: fulfillment,
            recipientFirstName: first,
            recipientLastName: last, phone: phone, street: street, buildingNo: building,
            floor: problems.optionalText(floor, "floor", maximumLength: 20),
            apartment: problems.optionalText(apartment, "apartment", maximumLength: 20),
            city: problems.optionalText(city, "city", maximumLength: 100),
            deliveryNotes: problems.optionalText(deliveryNotes, "delivery_notes", maximumLength: 1000),
            boxesCount: boxes ?? 0,
            customerName: problems.optionalText(customerName, "customer_name"),
            dueAt: dueAt, notes: problems.optionalText(notes, "notes", maximumLength: 2000))
        try problems.check()
        return draft
    }

    static func isPhoneNumber(_ text: String) -> Bool {
        let digits = text.unicodeScalars.filter { ("0"..."9").contains($0) }.count
        return digits >= 3
            && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || " +()-".unicodeScalars.contains($0) }
    }
}

/// An order draft that passed validation, with its text trimmed.
public struct ValidOrderDraft: Hashable, Sendable {
    public var id: OrderID?
    public var storeID: StoreID?
    public var workflow: OrderWorkflow
    public var fulfillment: Fulfillment
    public var recipientFirstName: String?
    public var recipientLastName: String?
    public var phone: String?
    public var street: String?
    public var buildingNo: String?
    public var floor: String?
    public var apartment: String?
    public var city: String?
    public var deliveryNotes: String?
    /// 0 for a pickup order that gave none.
    public var boxesCount: Int
    public var customerName: String?
    public var dueAt: Date?
    public var notes: String?

    /// The recipient's address on one line: `Herzl 12, floor 3, apt. 7, Tel Aviv`.
    public var deliveryAddress: String? {
        Order.addressLine(
            fulfillment: fulfillment, street: street, buildingNo: buildingNo, floor: floor, apartment: apartment,
            city: city)
    }
}
