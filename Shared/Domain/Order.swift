public import Foundation

/// Where an order's status stands (DESIGN §6).
public enum OrderStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case pending, accepted, preparing, ready
    case outForDelivery = "out_for_delivery"
    case delivered, collected, cancelled
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
    public var itemsNet: Int64
    public var itemsVAT: Int64
    public var itemsGross: Int64
    /// `itemsGross + deliveryFee`.
    public var total: Int64
    public var createdBy: UserID
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: OrderID, number: Int64, storeID: StoreID, fulfillment: Fulfillment, status: OrderStatus, version: Int64,
        draft: ValidOrderDraft, pickupAddress: String?, quote: DeliveryQuote, currency: CurrencyCode,
        createdBy: UserID, createdAt: Date
    ) {
        self.id = id
        self.number = number
        self.storeID = storeID
        self.fulfillment = fulfillment
        self.status = status
        self.version = version
        self.recipientFirstName = draft.recipientFirstName
        self.recipientLastName = draft.recipientLastName
        self.phone = draft.phone
        self.street = draft.street
        self.buildingNo = draft.buildingNo
        self.floor = draft.floor
        self.apartment = draft.apartment
        self.city = draft.city
        self.deliveryNotes = draft.deliveryNotes
        self.pickupAddress = pickupAddress
        self.deliveryAddress = draft.deliveryAddress
        self.boxesCount = draft.boxesCount
        self.boxesMultiplier = quote.multiplier
        self.deliveryFee = quote.fee
        self.currency = currency
        self.customerName = draft.customerName
        self.dueAt = draft.dueAt
        self.notes = draft.notes
        self.courierID = nil
        self.claimedAt = nil
        self.itemsNet = 0
        self.itemsVAT = 0
        self.itemsGross = 0
        self.total = quote.fee
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, number, fulfillment, status, version, phone, street, floor, apartment, city, currency, notes, total
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
        case itemsNet = "items_net"
        case itemsVAT = "items_vat"
        case itemsGross = "items_gross"
        case createdBy = "created_by"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// An order as a client sends it to be created: every field optional here, so that validation
/// can name every missing one at once.
public struct OrderDraft: Hashable, Sendable, Codable {
    /// Chosen by the client for orders created offline; the server picks one otherwise.
    public var id: OrderID?
    /// Only admins name the store; store users create orders in their own.
    public var storeID: StoreID?
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
        id: OrderID? = nil, storeID: StoreID? = nil, fulfillment: Fulfillment? = nil,
        recipientFirstName: String? = nil, recipientLastName: String? = nil, phone: String? = nil,
        street: String? = nil, buildingNo: String? = nil, floor: String? = nil, apartment: String? = nil,
        city: String? = nil, deliveryNotes: String? = nil, boxesCount: Int? = nil, customerName: String? = nil,
        dueAt: Date? = nil, notes: String? = nil
    ) {
        self.id = id
        self.storeID = storeID
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
        case id, fulfillment, phone, street, floor, apartment, city, notes
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
    /// phone, street, building number and at least one box. Every problem is reported.
    public func validated() throws(OrderlyError) -> ValidOrderDraft {
        var problems = FieldProblems()
        let fulfillment = self.fulfillment ?? .delivery
        let delivery = fulfillment == .delivery
        let first = problems.optionalText(recipientFirstName, "recipient_first_name", required: delivery)
        let last = problems.optionalText(recipientLastName, "recipient_last_name", required: delivery)
        let phone = problems.optionalText(phone, "phone", maximumLength: 32, required: delivery)
        if let phone, !Self.isPhoneNumber(phone) {
            problems.add("phone", "must be a phone number: digits, spaces, and + ( ) - only")
        }
        let street = problems.optionalText(street, "street", required: delivery)
        let building = problems.optionalText(buildingNo, "building_no", maximumLength: 20, required: delivery)
        let boxes = problems.integer(boxesCount, "boxes_count", in: 1...10_000, required: delivery)
        let draft = ValidOrderDraft(
            id: id, storeID: storeID, fulfillment: fulfillment, recipientFirstName: first,
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
        guard fulfillment == .delivery, let street, let buildingNo else { return nil }
        var parts = ["\(street) \(buildingNo)"]
        if let floor { parts.append("floor \(floor)") }
        if let apartment { parts.append("apt. \(apartment)") }
        if let city { parts.append(city) }
        return parts.joined(separator: ", ")
    }
}
