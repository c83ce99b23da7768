import Foundation

/// A customer's order as their app sends it (`POST /v1/orders` by a customer): every field
/// optional here, so that one answer names every problem. The gateway replaces `address_id`
/// with the saved address itself (`address`), so the orders service reads one address either way.
public struct CheckoutDraft: Hashable, Sendable, Codable {
    public var id: OrderID?
    public var storeID: StoreID?
    public var fulfillment: Fulfillment?
    public var addressID: AddressID?
    public var address: AddressFields?
    public var items: [CheckoutLine]?
    /// For the courier, in minor units; deliveries only.
    public var tip: Int64?
    /// The customer's note to the store.
    public var notes: String?
    public var paymentMethod: OrderPaymentMethod?

    public init(
        id: OrderID? = nil, storeID: StoreID? = nil, fulfillment: Fulfillment? = nil, addressID: AddressID? = nil,
        address: AddressFields? = nil, items: [CheckoutLine]? = nil, tip: Int64? = nil, notes: String? = nil,
        paymentMethod: OrderPaymentMethod? = nil
    ) {
        self.id = id
        self.storeID = storeID
        self.fulfillment = fulfillment
        self.addressID = addressID
        self.address = address
        self.items = items
        self.tip = tip
        self.notes = notes
        self.paymentMethod = paymentMethod
    }

    enum CodingKeys: String, CodingKey {
        case id, fulfillment, address, items, tip, notes
        case storeID = "store_id"
        case addressID = "address_id"
        case paymentMethod = "payment_method"
    }

    /// The most lines a customer's order holds.
    public static let maximumLines = 50
    /// The most units of one line.
    public static let maximumQuantity = 99
}

/// A line of a customer's order: a product of the store's menu, how many, the options chosen
/// and a note for the kitchen.
public struct CheckoutLine: Hashable, Sendable, Codable {
    public var productID: ProductID?
    public var quantity: Int?
    public var optionIDs: [OptionID]?
    public var notes: String?

    public init(productID: ProductID? = nil, quantity: Int? = nil, optionIDs: [OptionID]? = nil, notes: String? = nil) {
        self.productID = productID
        self.quantity = quantity
        self.optionIDs = optionIDs
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case quantity, notes
        case productID = "product_id"
        case optionIDs = "option_ids"
    }
}

/// Who is checking out, as the gateway knows them: the recipient of their order.
public struct CheckoutCustomer: Hashable, Sendable, Codable {
    public var name: String
    public var phone: String?

    public init(name: String, phone: String?) {
        self.name = name
        self.phone = phone
    }
}

extension CheckoutDraft {
    /// Checks the draft as a whole for `customer`: the store, a fulfillment, the address of a
    /// delivery (its fields named `address.…`), one to `maximumLines` lines, a tip only for a
    /// delivery, and the payment method. The recipient is the customer: their name, and the
    /// address's phone or theirs. Every problem is reported.
    public func validated(for customer: CheckoutCustomer) throws(OrderlyError) -> ValidCheckout {
        var problems = FieldProblems()
        let storeID = problems.required(storeID, "store_id")
        let fulfillment = self.fulfillment ?? .delivery
        let method = problems.required(paymentMethod, "payment_method")
        // Where a delivery goes; nil for a pickup.
        var place: DeliveryAddress?
        switch (fulfillment, address) {
        case (.delivery, let address?):
            var found = FieldProblems()
            place = address.newAddress(at: Date(), &found)
            for (field, reason) in found.reasons { problems.add("address.\(field)", reason) }
        case (.delivery, nil):
            problems.add("address", "is required for a delivery: give address_id or address")
        case (.pickup, let address):
            if address != nil || addressID != nil { problems.add("address", "is only for a delivery") }
        }
        let tip = problems.integer(tip, "tip", in: 0...Payment.maximumAmount, required: false) ?? 0
        if tip > 0, fulfillment == .pickup { problems.add("tip", "is for the courier of a delivery") }
        let notes = problems.optionalText(notes, "notes", maximumLength: 1000)
        var lines: [ValidCheckout.Line] = []
        if let items, !items.isEmpty {
            if items.count > Self.maximumLines {
                problems.add("items", "must hold at most \(Self.maximumLines) lines")
            }
            for (index, item) in items.prefix(Self.maximumLines).enumerated() {
                let field = "items[\(index)]"
                let product = problems.required(item.productID, "\(field).product_id")
                let quantity =
                    problems.integer(item.quantity, "\(field).quantity", in: 1...Self.maximumQuantity, required: false)
                    ?? 1
                let options = item.optionIDs ?? []
                if Set(options).count != options.count {
                    problems.add("\(field).option_ids", "names an option twice")
                }
                if options.count > OptionGroup.maximumOptions {
                    problems.add("\(field).option_ids", "must name at most \(OptionGroup.maximumOptions) options")
                }
                let lineNotes = problems.optionalText(item.notes, "\(field).notes", maximumLength: 500)
                if let product {
                    lines.append(.init(productID: product, quantity: quantity, optionIDs: options, notes: lineNotes))
                }
            }
        } else {
            problems.add("items", "must hold at least one line")
        }
        let phone = place?.phone ?? customer.phone
        if fulfillment == .delivery, phone == nil {
            problems.add("address.phone", "is required: your profile has no phone")
        }
        guard let storeID, let method, problems.isEmpty else { throw problems.failure }
        let name = customer.name.split(separator: " ", maxSplits: 1).map(String.init)
        let order = ValidOrderDraft(
            id: id, storeID: storeID, workflow: .standard, fulfillment: fulfillment, recipientFirstName: name.first,
            recipientLastName: name.count > 1 ? name[1] : nil, phone: phone,
            street: place?.street, buildingNo: place?.buildingNo, floor: place?.floor, apartment: place?.apartment,
            city: place?.city, deliveryNotes: place?.deliveryNotes, boxesCount: place == nil ? 0 : 1,
            customerName: customer.name, dueAt: nil, notes: nil)
        return ValidCheckout(
            storeID: storeID, order: order, lines: lines, tip: tip, customerNotes: notes, paymentMethod: method,
            place: place?.location)
    }
}
