public import Foundation

/// How a product's stock stands, from what can still be sold (`available`).
public enum StockStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case notTracked = "not_tracked"
    case inStock = "in_stock"
    /// At or below the product's low-stock threshold, above zero.
    case low
    case outOfStock = "out_of_stock"

    /// The event a change from `before` to this status raises: `stock.low` on crossing the
    /// threshold downwards, `stock.out` on reaching zero (only that one when a change does
    /// both); nil otherwise. Each crossing raises its event once: staying low raises nothing
    /// more, and rising above the threshold makes the next crossing count again.
    public func alert(after before: StockStatus) -> String? {
        switch (before, self) {
        case (.inStock, .low): return Product.Events.low
        case (.inStock, .outOfStock), (.low, .outOfStock): return Product.Events.out
        default: return nil
        }
    }
}

/// Why a product's stock changed; every ledger entry names one.
public enum StockReason: String, Hashable, Sendable, Codable, CaseIterable {
    case sale, restock, adjustment
    case `return`
    case damage, expired, transfer, initial
}

/// A product a store sells, with its stock when the store tracks it.
public struct Product: Hashable, Sendable {
    public var id: ProductID
    public var storeID: StoreID
    public var name: String
    /// Unique in the store when present, as is `barcode`.
    public var sku: String?
    public var barcode: String?
    public var category: String?
    /// What the menu says of it beside its name.
    public var description: String?
    /// Gross (VAT included), in `currency` minor units.
    public var price: Int64
    public var currency: CurrencyCode
    public var vatRateBP: Int
    public var emoji: String?
    public var iconID: String?
    public var imageURL: String?
    /// The choices a customer makes when ordering it, in order.
    public var optionGroups: [OptionGroup]
    public var trackStock: Bool
    /// On hand: always the sum of the product's ledger.
    public var quantity: Int64
    /// Held by open reservations.
    public var reserved: Int64
    public var lowStockThreshold: Int64
    public var allowNegativeStock: Bool
    public var active: Bool
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    /// The event types of stock crossings (`StockStatus.alert(after:)`).
    public enum Events {
        public static let low = "stock.low"
        public static let out = "stock.out"
    }

    public init(
        id: ProductID, storeID: StoreID, name: String, sku: String? = nil, barcode: String? = nil,
        category: String? = nil, price: Int64, currency: CurrencyCode, vatRateBP: Int, emoji: String? = nil,
        iconID: String? = nil, imageURL: String? = nil, trackStock: Bool, quantity: Int64 = 0, reserved: Int64 = 0,
        lowStockThreshold: Int64, allowNegativeStock: Bool = false, active: Bool = true, version: Int64 = 1,
        createdAt: Date, updatedAt: Date, description: String? = nil, optionGroups: [OptionGroup] = []
    ) {
        self.id = id
        self.storeID = storeID
        self.name = name
        self.sku = sku
        self.barcode = barcode
        self.category = category
        self.price = price
        self.currency = currency
        self.vatRateBP = vatRateBP
        self.emoji = emoji
        self.iconID = iconID
        self.imageURL = imageURL
        self.description = description
        self.optionGroups = optionGroups
        self.trackStock = trackStock
        self.quantity = quantity
        self.reserved = reserved
        self.lowStockThreshold = lowStockThreshold
        self.allowNegativeStock = allowNegativeStock
        self.active = active
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// What can still be sold: on hand less what reservations hold.
    public var available: Int64 { quantity - reserved }

    public var stockStatus: StockStatus {
        guard trackStock else { return .notTracked }
        if available <= 0 { return .outOfStock }
        return available <= lowStockThreshold ? .low : .inStock
    }

    /// Whether a cashier can sell one now: active, and in stock unless stock is not tracked or
    /// may go negative.
    public var canSell: Bool {
        active && (!trackStock || allowNegativeStock || available > 0)
    }

    /// The quantity on hand after a ledger entry of `adjustment` units (signed). Throws
    /// `insufficient_stock` (with `details.available`) when it would leave less than what
    /// reservations hold, or less than zero, and the product does not allow negative stock.
    public func quantity(adjustedBy adjustment: Int64) throws(OrderlyError) -> Int64 {
        let (result, overflow) = quantity.addingReportingOverflow(adjustment)
        guard !overflow, result.magnitude <= Self.maximumQuantity.magnitude else {
            throw OrderlyError.invalidFields(
                ["adjustment": "must leave a quantity from -\(Self.maximumQuantity) to \(Self.maximumQuantity)"])
        }
        if adjustment < 0, !allowNegativeStock, result - reserved < 0 {
            throw insufficientStock(requested: -adjustment)
        }
        return result
    }

    /// Checks that `quantity` more units can be reserved; throws `insufficient_stock` when not.
    public func checkReservable(_ quantity: Int64) throws(OrderlyError) {
        guard trackStock, !allowNegativeStock, quantity > available else { return }
        throw insufficientStock(requested: quantity)
    }

    /// `409 insufficient_stock` naming the product and what is available.
    public func insufficientStock(requested: Int64) -> OrderlyError {
        OrderlyError(
            .insufficientStock, "only \(max(0, available)) of \(name) available, \(requested) asked for",
            details: ["product_id": .string(id.description), "available": .int(max(0, available))])
    }

    /// The largest quantity on hand, reserved or adjusted at once.
    public static let maximumQuantity: Int64 = 1_000_000_000

    /// The most a product's JSON may take, in bytes, so that a page of the most products a
    /// page holds (200) fits a Wire frame with room to spare. Only long option names and
    /// descriptions come near it.
    public static let maximumBytes = 16 * 1024

    /// Refuses a product whose JSON exceeds `maximumBytes`, naming what makes it so large.
    func checkSize() throws(OrderlyError) {
        guard let bytes = try? JSONEncoder().encode(self).count, bytes > Self.maximumBytes else { return }
        throw OrderlyError.invalidFields([
            optionGroups.isEmpty ? "description" : "option_groups":
                "make the product \(bytes) bytes; a product takes at most \(Self.maximumBytes)"
        ])
    }
}

extension Product {
    /// Refuses to sell a product that is not for sale now (inactive): 422 `product_inactive`
    /// naming `field`. The one rule of every sale: a customer's checkout, an order's line, the
    /// till, and the stock held for any of them.
    public func checkForSale(field: String = "product_id") throws(OrderlyError) {
        guard active else {
            throw OrderlyError(
                .productInactive, "\(name) is not for sale now",
                details: [field: .string("is not for sale now")])
        }
    }
}

extension Product: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, sku, barcode, category, description, price, currency, emoji, quantity, reserved, available
        case active, version
        case optionGroups = "option_groups"
        case storeID = "store_id"
        case vatRateBP = "vat_rate_bp"
        case iconID = "icon_id"
        case imageURL = "image_url"
        case trackStock = "track_stock"
        case lowStockThreshold = "low_stock_threshold"
        case allowNegativeStock = "allow_negative_stock"
        case stockStatus = "stock_status"
        case canSell = "can_sell"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(ProductID.self, forKey: .id),
            storeID: try container.decode(StoreID.self, forKey: .storeID),
            name: try container.decode(String.self, forKey: .name),
            sku: try container.decodeIfPresent(String.self, forKey: .sku),
            barcode: try container.decodeIfPresent(String.self, forKey: .barcode),
            category: try container.decodeIfPresent(String.self, forKey: .category),
            price: try container.decode(Int64.self, forKey: .price),
            currency: try container.decode(CurrencyCode.self, forKey: .currency),
            vatRateBP: try container.decode(Int.self, forKey: .vatRateBP),
            emoji: try container.decodeIfPresent(String.self, forKey: .emoji),
            iconID: try container.decodeIfPresent(String.self, forKey: .iconID),
            imageURL: try container.decodeIfPresent(String.self, forKey: .imageURL),
            trackStock: try container.decode(Bool.self, forKey: .trackStock),
            quantity: try container.decode(Int64.self, forKey: .quantity),
            reserved: try container.decode(Int64.self, forKey: .reserved),
            lowStockThreshold: try container.decode(Int64.self, forKey: .lowStockThreshold),
            allowNegativeStock: try container.decode(Bool.self, forKey: .allowNegativeStock),
            active: try container.decode(Bool.self, forKey: .active),
            version: try container.decode(Int64.self, forKey: .version),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            updatedAt: try container.decode(Date.self, forKey: .updatedAt),
            description: try container.decodeIfPresent(String.self, forKey: .description),
            optionGroups: try container.decodeIfPresent([OptionGroup].self, forKey: .optionGroups) ?? [])
    }

    /// Writes the stored fields and the derived ones (`available`, `stock_status`, `can_sell`),
    /// which decoding ignores.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(storeID, forKey: .storeID)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(sku, forKey: .sku)
        try container.encodeIfPresent(barcode, forKey: .barcode)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(price, forKey: .price)
        try container.encode(currency, forKey: .currency)
        try container.encode(vatRateBP, forKey: .vatRateBP)
        try container.encodeIfPresent(emoji, forKey: .emoji)
        try container.encodeIfPresent(iconID, forKey: .iconID)
        try container.encodeIfPresent(imageURL, forKey: .imageURL)
        try container.encode(optionGroups, forKey: .optionGroups)
        try container.encode(trackStock, forKey: .trackStock)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(reserved, forKey: .reserved)
        try container.encode(available, forKey: .available)
        try container.encode(lowStockThreshold, forKey: .lowStockThreshold)
        try container.encode(allowNegativeStock, forKey: .allowNegativeStock)
        try container.encode(stockStatus, forKey: .stockStatus)
        try container.encode(canSell, forKey: .canSell)
        try container.encode(active, forKey: .active)
        try container.encode(version, forKey: .version)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

/// A product's fields as a client sends them: all optional, so that validation names every
/// problem. On creation `name` and `price` are required and the rest have defaults (the store's
/// product VAT rate and low-stock threshold among them); on a patch absent means unchanged and
/// blank text clears an optional field. `quantity` is the opening stock, on creation only (an
/// `initial` ledger entry); later changes go through stock adjustments.
public struct ProductDraft: Hashable, Sendable, Codable {
    /// Chosen by the client for products created offline; the server picks one otherwise.
    public var id: ProductID?
    public var name: String?
    public var sku: String?
    public var barcode: String?
    public var category: String?
    public var description: String?
    public var price: Int64?
    public var vatRateBP: Int?
    public var emoji: String?
    public var iconID: String?
    public var imageURL: String?
    /// Replaced whole; an empty list removes them.
    public var optionGroups: [OptionGroupDraft]?
    public var trackStock: Bool?
    public var quantity: Int64?
    public var lowStockThreshold: Int64?
    public var allowNegativeStock: Bool?
    public var active: Bool?

    public init(
        id: ProductID? = nil, name: String? = nil, sku: String? = nil, barcode: String? = nil,
        category: String? = nil, price: Int64? = nil, vatRateBP: Int? = nil, emoji: String? = nil,
        iconID: String? = nil, imageURL: String? = nil, trackStock: Bool? = nil, quantity: Int64? = nil,
        lowStockThreshold: Int64? = nil, allowNegativeStock: Bool? = nil, active: Bool? = nil,
        description: String? = nil, optionGroups: [OptionGroupDraft]? = nil
    ) {
        self.id = id
        self.description = description
        self.optionGroups = optionGroups
        self.name = name
        self.sku = sku
        self.barcode = barcode
        self.category = category
        self.price = price
        self.vatRateBP = vatRateBP
        self.emoji = emoji
        self.iconID = iconID
        self.imageURL = imageURL
        self.trackStock = trackStock
        self.quantity = quantity
        self.lowStockThreshold = lowStockThreshold
        self.allowNegativeStock = allowNegativeStock
        self.active = active
    }

    enum CodingKeys: String, CodingKey {
        case id, name, sku, barcode, category, description, price, emoji, quantity, active
        case optionGroups = "option_groups"
        case vatRateBP = "vat_rate_bp"
        case iconID = "icon_id"
        case imageURL = "image_url"
        case trackStock = "track_stock"
        case lowStockThreshold = "low_stock_threshold"
        case allowNegativeStock = "allow_negative_stock"
    }

    /// The highest price, in minor units (a hundred million in the currency's major unit).
    public static let maximumPrice: Int64 = 10_000_000_000

    /// The new product the draft makes of `skeleton` (a blank product carrying the store's
    /// defaults): `name` and `price` are required, `quantity` is the opening stock, and every
    /// other field the draft carries replaces the default. Throws one error naming every bad
    /// field, or the product's size refusal.
    public func validated(creating skeleton: Product) throws(OrderlyError) -> Product {
        try validated(onto: skeleton, creating: true)
    }

    /// `current` with the fields the draft carries changed (absent means unchanged; a blank
    /// optional text clears it). The id and the stock are not changed here: stock moves by
    /// adjustments. Throws one error naming every bad field, or the product's size refusal.
    public func validated(updating current: Product) throws(OrderlyError) -> Product {
        try validated(onto: current, creating: false)
    }

    /// `product` with the draft's fields checked and applied: a new product when `creating`,
    /// the current one for a patch.
    private func validated(onto product: Product, creating: Bool) throws(OrderlyError) -> Product {
        var product = product
        var problems = FieldProblems()
        if creating {
            product.name = problems.text(name, "name")
            if price == nil { problems.add("price", "is required") }
        } else {
            if let name { product.name = problems.text(name, "name") }
            if id != nil { problems.add("id", "cannot be changed") }
        }
        if let sku { product.sku = problems.optionalText(sku, "sku", maximumLength: 64) }
        if let barcode {
            product.barcode = problems.optionalText(barcode, "barcode", maximumLength: 64)
            if let code = product.barcode, !Self.isBarcode(code) {
                problems.add("barcode", "must be letters, digits and - . _ only")
            }
        }
        if let category { product.category = problems.optionalText(category, "category", maximumLength: 100) }
        if let description {
            product.description = problems.optionalText(
                description, "description", maximumLength: 2000, allowingInvisible: true)
        }
        if let optionGroups {
            product.optionGroups = OptionGroupDraft.groups(optionGroups, maximumDelta: Self.maximumPrice, &problems)
        }
        if let price = problems.integer(price, "price", in: 0...Self.maximumPrice, required: false) {
            product.price = price
        }
        if let rate = problems.integer(vatRateBP, "vat_rate_bp", in: 0...10_000, required: false) {
            product.vatRateBP = rate
        }
        if let emoji {
            product.emoji = problems.optionalText(emoji, "emoji", maximumLength: 16, allowingInvisible: true)
        }
        if let iconID { product.iconID = problems.optionalText(iconID, "icon_id", maximumLength: 100) }
        if let imageURL { product.imageURL = problems.webAddress(imageURL, "image_url") }
        if let trackStock { product.trackStock = trackStock }
        if creating {
            if let quantity = problems.integer(
                quantity, "quantity", in: 0...Product.maximumQuantity, required: false)
            {
                product.quantity = quantity
            }
        } else if quantity != nil {
            problems.add("quantity", "is changed by stock adjustments, not by editing the product")
        }
        if let threshold = problems.integer(
            lowStockThreshold, "low_stock_threshold", in: 0...Product.maximumQuantity, required: false)
        {
            product.lowStockThreshold = threshold
        }
        if let allowNegativeStock { product.allowNegativeStock = allowNegativeStock }
        if let active { product.active = active }
        try problems.check()
        try product.checkSize()
        return product
    }

    static func isBarcode(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || "0123456789-._".unicodeScalars.contains($0))
        }
    }
}

/// One change of a product's stock, as the ledger keeps it: the quantity on hand is always the
/// sum of a product's entries' adjustments.
public struct StockLedgerEntry: Hashable, Sendable, Codable {
    public var id: UUID
    /// Increasing over every product's entries: a product's entries in this order are its history.
    public var seq: Int64
    public var productID: ProductID
    public var storeID: StoreID
    public var previousQuantity: Int64
    public var newQuantity: Int64
    public var adjustment: Int64
    public var reason: StockReason
    public var notes: String?
    /// The payment or order the change belongs to.
    public var reference: String?
    public var createdBy: UserID
    public var createdAt: Date
    /// When the change was made on a device that was offline, by its clock.
    public var clientCreatedAt: Date?
    /// The product's name as it is now, on the store-wide ledger; never stored.
    public var productName: String?

    public init(
        id: UUID, seq: Int64, productID: ProductID, storeID: StoreID, previousQuantity: Int64, newQuantity: Int64,
        reason: StockReason, notes: String?, reference: String?, createdBy: UserID, createdAt: Date,
        clientCreatedAt: Date?
    ) {
        self.id = id
        self.seq = seq
        self.productID = productID
        self.storeID = storeID
        self.previousQuantity = previousQuantity
        self.newQuantity = newQuantity
        self.adjustment = newQuantity - previousQuantity
        self.reason = reason
        self.notes = notes
        self.reference = reference
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.clientCreatedAt = clientCreatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, seq, adjustment, reason, notes, reference
        case productID = "product_id"
        case storeID = "store_id"
        case previousQuantity = "previous_quantity"
        case newQuantity = "new_quantity"
        case createdBy = "created_by"
        case createdAt = "created_at"
        case clientCreatedAt = "client_created_at"
        case productName = "product_name"
    }
}
