/// A line of an order: what staff type (type, description, quantity, the
/// VAT-inclusive unit price) and what the server derives from it (net price, line amounts).
public struct OrderItem: Hashable, Sendable, Codable {
    public var id: OrderItemID
    public var type: ItemType
    public var productID: ProductID?
    /// The customer's device the line is for (`CustomerDevice`, of the order's store); a line
    /// written before stores kept devices may hold other text.
    public var deviceID: String?
    public var description: String
    public var quantity: Int
    /// VAT-inclusive, per unit, in the order's currency minor units.
    public var unitPriceGross: Int64
    public var vatRateBasisPoints: Int
    public var unitPriceNet: Int64
    public var lineGross: Int64
    public var lineNet: Int64
    public var lineVAT: Int64
    public var isWarrantyItem: Bool
    public var warrantyNotes: String?
    /// For a line of a stock-tracked catalog product: the reservations holding its units, the
    /// first for the quantity it was added with and one more for each increase since.
    public var reservationIDs: [ReservationID]? = nil
    /// For a line a customer ordered: the options they chose, each priced into the unit price.
    public var options: [ChosenOption]? = nil
    /// For a line a customer ordered: their note for the kitchen.
    public var notes: String? = nil

    /// An option chosen for a line, as it was when the line was ordered.
    public struct ChosenOption: Hashable, Sendable, Codable {
        public var groupID: OptionGroupID
        public var id: OptionID
        public var name: String
        public var priceDelta: Int64

        public init(groupID: OptionGroupID, id: OptionID, name: String, priceDelta: Int64) {
            self.groupID = groupID
            self.id = id
            self.name = name
            self.priceDelta = priceDelta
        }

        enum CodingKeys: String, CodingKey {
            case id, name
            case groupID = "group_id"
            case priceDelta = "price_delta"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, type, description, quantity, options, notes
        case productID = "product_id"
        case reservationIDs = "reservation_ids"
        case deviceID = "device_id"
        case unitPriceGross = "unit_price_gross"
        case vatRateBasisPoints = "vat_rate_bp"
        case unitPriceNet = "unit_price_net"
        case lineGross = "line_gross"
        case lineNet = "line_net"
        case lineVAT = "line_vat"
        case isWarrantyItem = "is_warranty_item"
        case warrantyNotes = "warranty_notes"
    }
}

/// An item as a client sends it: every field optional, so that one answer names every problem.
/// On creation `type`, `description` and `unit_price_gross` are required, `quantity` defaults
/// to 1 and `vat_rate_bp` to the store's rate for the type; a change sends only what changes.
public struct OrderItemDraft: Hashable, Sendable, Codable {
    /// Chosen by the client for items added offline.
    public var id: OrderItemID?
    public var type: ItemType?
    public var productID: ProductID?
    public var deviceID: String?
    public var description: String?
    public var quantity: Int?
    public var unitPriceGross: Int64?
    public var vatRateBasisPoints: Int?
    public var isWarrantyItem: Bool?
    public var warrantyNotes: String?

    public init(
        id: OrderItemID? = nil, type: ItemType? = nil, productID: ProductID? = nil, deviceID: String? = nil,
        description: String? = nil, quantity: Int? = nil, unitPriceGross: Int64? = nil,
        vatRateBasisPoints: Int? = nil, isWarrantyItem: Bool? = nil, warrantyNotes: String? = nil
    ) {
        self.id = id
        self.type = type
        self.productID = productID
        self.deviceID = deviceID
        self.description = description
        self.quantity = quantity
        self.unitPriceGross = unitPriceGross
        self.vatRateBasisPoints = vatRateBasisPoints
        self.isWarrantyItem = isWarrantyItem
        self.warrantyNotes = warrantyNotes
    }

    enum CodingKeys: String, CodingKey {
        case id, type, description, quantity
        case productID = "product_id"
        case deviceID = "device_id"
        case unitPriceGross = "unit_price_gross"
        case vatRateBasisPoints = "vat_rate_bp"
        case isWarrantyItem = "is_warranty_item"
        case warrantyNotes = "warranty_notes"
    }

    /// What a line's `device_id` must be.
    public static let deviceRule = "must be the id of a device of the order's store's customers"

    /// The customer's device the draft names, trimmed; nil when it names none or clears it.
    public var namedDeviceID: String? { deviceID.map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 } }

    /// Refuses a draft naming a customer's device unless `deviceStore`, the store the device was
    /// found in, is `store`, the order's (400 naming `device_id`). A blank id clears the line's.
    public func checkDevice(named deviceStore: StoreID?, in store: StoreID) throws(OrderlyError) {
        guard namedDeviceID != nil else { return }
        guard deviceStore == store else { throw OrderlyError.invalidFields(["device_id": Self.deviceRule]) }
    }

    /// A new item from this draft, priced with `rates` (the store's) unless the draft names a rate.
    public func newItem(rates: VATRates) throws(OrderlyError) -> OrderItem {
        var problems = FieldProblems()
        let type = problems.required(type, "type")
        let unitPriceGross = problems.required(unitPriceGross, "unit_price_gross")
        let description = problems.text(description, "description", maximumLength: 500)
        guard let type, let unitPriceGross, problems.isEmpty else { throw problems.failure }
        return try priced(
            OrderItem(
                id: id ?? OrderItemID(), type: type, productID: productID, deviceID: nil, description: description,
                quantity: quantity ?? 1, unitPriceGross: unitPriceGross,
                vatRateBasisPoints: vatRateBasisPoints ?? rates.rate(for: type), unitPriceNet: 0, lineGross: 0,
                lineNet: 0, lineVAT: 0, isWarrantyItem: isWarrantyItem ?? false, warrantyNotes: nil),
            changingType: false, rates: rates)
    }

    /// A new line of catalog product `product`, in an order of `currency`: its name, price and
    /// VAT rate as they are now, which later changes of the product leave as they are. The draft
    /// names only the product, the quantity and the warranty fields; `reservation` holds its units.
    /// A customer's `options` add their price deltas to the price and their names to the name.
    public func newItem(
        of product: Product, currency: CurrencyCode, holding reservation: ReservationID?,
        options: [OrderItem.ChosenOption] = []
    ) throws(OrderlyError) -> OrderItem {
        var problems = FieldProblems()
        if description != nil { problems.add("description", "is the product's name") }
        if unitPriceGross != nil { problems.add("unit_price_gross", "is the product's price") }
        if vatRateBasisPoints != nil { problems.add("vat_rate_bp", "is the product's VAT rate") }
        if let type, type != .product { problems.add("type", "is product for a catalog product") }
        try problems.check()
        try product.checkForSale()
        guard product.currency == currency else {
            throw OrderlyError(
                .currencyMismatch, "\(product.name) is priced in \(product.currency), the order in \(currency)")
        }
        var item = try priced(
            OrderItem(
                id: id ?? OrderItemID(), type: .product, productID: product.id, deviceID: nil,
                description: options.isEmpty
                    ? product.name : "\(product.name) (\(options.map(\.name).joined(separator: ", ")))",
                quantity: quantity ?? 1, unitPriceGross: options.reduce(product.price) { $0 + $1.priceDelta },
                vatRateBasisPoints: product.vatRateBP, unitPriceNet: 0, lineGross: 0, lineNet: 0, lineVAT: 0,
                isWarrantyItem: isWarrantyItem ?? false, warrantyNotes: nil),
            changingType: false, rates: .standard)
        item.reservationIDs = reservation.map { [$0] }
        item.options = options.isEmpty ? nil : options
        return item
    }

    /// `item` with this draft's changes, priced again. A new `type` without a `vat_rate_bp` takes
    /// the store's rate for the new type. A catalog product's line changes only its quantity and
    /// warranty fields (`422 catalog_line` for the others), and no other line becomes one.
    public func applied(to item: OrderItem, rates: VATRates) throws(OrderlyError) -> OrderItem {
        if item.productID != nil {
            let fixed = [
                ("product_id", productID.map { $0 != item.productID } ?? false),
                ("type", type.map { $0 != item.type } ?? false),
                ("description", description != nil), ("unit_price_gross", unitPriceGross != nil),
                ("vat_rate_bp", vatRateBasisPoints != nil),
            ].filter(\.1).map(\.0)
            if !fixed.isEmpty {
                throw OrderlyError(
                    .catalogLine,
                    "a catalog product's line keeps the product's \(fixed.joined(separator: ", "))")
            }
        } else if productID != nil {
            throw OrderlyError(
                .catalogLine, "a line becomes no catalog product's; add a line of the product instead")
        }
        var item = item
        var problems = FieldProblems()
        if let description { item.description = problems.text(description, "description", maximumLength: 500) }
        try problems.check()
        let changingType = type != nil && type != item.type
        if let type { item.type = type }
        if let quantity { item.quantity = quantity }
        if let unitPriceGross { item.unitPriceGross = unitPriceGross }
        if let vatRateBasisPoints { item.vatRateBasisPoints = vatRateBasisPoints }
        if let isWarrantyItem { item.isWarrantyItem = isWarrantyItem }
        return try priced(item, changingType: changingType, rates: rates)
    }

    /// Validates the free-text fields and derives the amounts.
    private func priced(_ item: OrderItem, changingType: Bool, rates: VATRates) throws(OrderlyError) -> OrderItem {
        var item = item
        var problems = FieldProblems()
        if deviceID != nil { item.deviceID = problems.optionalText(deviceID, "device_id", maximumLength: 100) }
        if warrantyNotes != nil {
            item.warrantyNotes = problems.optionalText(warrantyNotes, "warranty_notes", maximumLength: 1000)
        }
        if changingType && vatRateBasisPoints == nil { item.vatRateBasisPoints = rates.rate(for: item.type) }
        do {
            let amounts = try LineAmounts(
                type: item.type, quantity: item.quantity, unitPriceGross: item.unitPriceGross,
                vatRateBasisPoints: item.vatRateBasisPoints)
            item.unitPriceNet = amounts.unitPriceNet
            item.lineGross = amounts.lineGross
            item.lineNet = amounts.lineNet
            item.lineVAT = amounts.lineVAT
        } catch {
            problems.add(error)
        }
        try problems.check()
        return item
    }
}
