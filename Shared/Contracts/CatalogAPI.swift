public import Domain
public import Foundation
public import WireContract

/// The catalog service's methods: stores, products and their stock.
public enum CatalogAPI {
    public static let service = "catalog"
    /// The gateway calls everything; orders and payments read stores and products and hold,
    /// sell and give back stock for the sales they make.
    public static let callers = WireCallers([
        GatewayAPI.service: WireCallers.everything, OrdersAPI.service: selling, PaymentsAPI.service: selling,
    ])
    private static let selling = WireCallers.only(
        getStore.name, getProduct.name, checkoutProducts.name, reserve.name, getReservation.name,
        commitReservation.name, releaseReservation.name)
    /// Admins only.
    public static let createStore = WireMethod<StoreDraft, Store>("catalog.stores.create", safeToRetry: false)
    public static let getStore = WireMethod<ResourceRef<StoreID>, Store>("catalog.stores.get", safeToRetry: true)
    /// Admins, couriers and customers see every store; store users their own.
    public static let listStores = WireMethod<StoreListRequest, Page<Store>>("catalog.stores.list", safeToRetry: true)
    /// Admins, and the store's owner and managers.
    public static let updateStore = WireMethod<StorePatch, Store>("catalog.stores.update", safeToRetry: false)

    /// Every signed-in user who sees the store, customers and couriers included.
    public static let menu = WireMethod<ResourceRef<StoreID>, Menu>("catalog.menu", safeToRetry: true)

    /// Admins, and the store's owner and managers.
    public static let createProduct = WireMethod<NewProduct, Product>("catalog.products.create", safeToRetry: false)
    /// Admins and the store's users.
    public static let getProduct = WireMethod<ResourceRef<ProductID>, Product>(
        "catalog.products.get", safeToRetry: true)
    /// Admins, and the store's owner and managers.
    public static let updateProduct = WireMethod<ProductPatch, Product>("catalog.products.update", safeToRetry: false)
    /// Admins and the store's users: a store's products, filtered, in creation order.
    public static let listProducts = WireMethod<ProductListRequest, Page<Product>>(
        "catalog.products.list", safeToRetry: true)
    /// Admins and the store's users: a store's products changed after a cursor, deactivated
    /// ones included (offline tablets).
    public static let productChanges = WireMethod<ProductChangesRequest, ProductChangesPage>(
        "catalog.products.changes", safeToRetry: true)
    /// Admins, and the store's owner and managers: one ledger entry.
    public static let adjustStock = WireMethod<ProductStockAdjustment, StockLedgerEntry>(
        "catalog.stock.adjust", safeToRetry: false)
    /// Admins and the store's users: a product's ledger, oldest entry first.
    public static let stockLedger = WireMethod<StockLedgerRequest, Page<StockLedgerEntry>>(
        "catalog.stock.ledger", safeToRetry: true)
    /// Admins and the store's users: the store's ledger, newest first, filtered, each entry
    /// with its product's name.
    public static let storeStockLedger = WireMethod<StoreStockLedgerRequest, Page<StockLedgerEntry>>(
        "catalog.stock.store_ledger", safeToRetry: true)

    /// The products a sale lists, for the orders and payments services (`StockHolds.sellable`):
    /// those of `ids` that are the store's (inactive ones too, so that the sale names them).
    public static let checkoutProducts = WireMethod<CheckoutProductsRequest, [Product]>(
        "catalog.products.checkout", safeToRetry: true)
    /// Admins and the store's users, and services selling for them: every line held, or none
    /// (`409 insufficient_stock` naming each short product; a product not for sale is 422
    /// `product_inactive`).
    public static let reserve = WireMethod<NewReservation, Reservation>(
        "catalog.reservations.create", safeToRetry: false)
    public static let getReservation = WireMethod<ResourceRef<ReservationID>, Reservation>(
        "catalog.reservations.get", safeToRetry: true)
    /// Sells what a held reservation holds: one `sale` ledger entry per line. Repeating it is
    /// harmless.
    public static let commitReservation = WireMethod<ResourceRef<ReservationID>, Reservation>(
        "catalog.reservations.commit", safeToRetry: true)
    /// Gives back what a held reservation holds. Repeating it is harmless.
    public static let releaseReservation = WireMethod<ResourceRef<ReservationID>, Reservation>(
        "catalog.reservations.release", safeToRetry: true)

    /// The events the catalog publishes on `orderly:events:catalog`: the store's with the store
    /// as payload, the products' with the product.
    public enum Events {
        public static let storeCreated = "store.created"
        public static let storeUpdated = "store.updated"
        public static let productCreated = "product.created"
        public static let productUpdated = "product.updated"
        /// A product's stock crossed its low-stock threshold downwards (`StockStatus.alert`).
        public static let stockLow = Product.Events.low
        /// A product's stock ran out.
        public static let stockOut = Product.Events.out
    }
}

/// A store's menu as customers see it: the store, and its active products by category
/// (categories by name, products without one last; products by name), each with whether it
/// can be sold now but not how many are left.
public struct Menu: Codable, Sendable, Hashable {
    public var store: Store
    public var categories: [Category]
    /// Whether the store has more active products than a menu holds (`maximumItems`, or
    /// `maximumBytes` of them): those last by category (products without one last), then the
    /// newest, are left out.
    public var truncated: Bool

    /// The most products a menu holds.
    public static let maximumItems = 1000
    /// The most the products of a menu take as stored, so that a menu is always within a Wire
    /// frame: a product takes up to `Product.maximumBytes` (its options and description), and an
    /// item of the menu no more than its product.
    public static let maximumBytes = 3 * 1024 * 1024

    public struct Category: Codable, Sendable, Hashable {
        /// Nil for the products without a category.
        public var name: String?
        public var items: [Item]
    }

    public struct Item: Codable, Sendable, Hashable {
        public var id: ProductID
        public var name: String
        public var price: Int64
        public var currency: CurrencyCode
        public var emoji: String?
        public var iconID: String?
        public var imageURL: String?
        public var description: String?
        /// What the customer chooses when ordering it.
        public var optionGroups: [OptionGroup]
        public var canSell: Bool

        enum CodingKeys: String, CodingKey {
            case id, name, price, currency, emoji, description
            case iconID = "icon_id"
            case imageURL = "image_url"
            case optionGroups = "option_groups"
            case canSell = "can_sell"
        }

        /// Read from a catalog of before options as having none.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(ProductID.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            price = try container.decode(Int64.self, forKey: .price)
            currency = try container.decode(CurrencyCode.self, forKey: .currency)
            emoji = try container.decodeIfPresent(String.self, forKey: .emoji)
            iconID = try container.decodeIfPresent(String.self, forKey: .iconID)
            imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            optionGroups = try container.decodeIfPresent([OptionGroup].self, forKey: .optionGroups) ?? []
            canSell = try container.decode(Bool.self, forKey: .canSell)
        }

        init(_ product: Product) {
            id = product.id
            name = product.name
            price = product.price
            currency = product.currency
            emoji = product.emoji
            iconID = product.iconID
            imageURL = product.imageURL
            description = product.description
            optionGroups = product.optionGroups
            canSell = product.canSell
        }
    }

    enum CodingKeys: String, CodingKey {
        case store, categories, truncated
    }

    /// Read from a catalog of before `truncated` (a rolling upgrade) as not truncated.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        store = try container.decode(Store.self, forKey: .store)
        categories = try container.decode([Category].self, forKey: .categories)
        truncated = try container.decodeIfPresent(Bool.self, forKey: .truncated) ?? false
    }

    /// The menu of `store` from its products; inactive ones are left out, and those beyond
    /// `maximumItems` when `truncated`.
    public init(store: Store, products: [Product], truncated: Bool = false) {
        self.store = store
        self.truncated = truncated
        let active = products.filter(\.active)
        let groups = Dictionary(grouping: active, by: \.category)
        let names = groups.keys.sorted { left, right in
            switch (left, right) {
            case (let left?, let right?): left.localizedStandardCompare(right) == .orderedAscending
            case (.some, nil): true
            case (nil, _): false
            }
        }
        categories = names.map { name in
            let items = (groups[name] ?? []).sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
                .map(Item.init)
            return Category(name: name, items: items)
        }
    }
}

/// A product to create in a store.
public struct NewProduct: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var product: ProductDraft

    public init(storeID: StoreID, product: ProductDraft) {
        self.storeID = storeID
        self.product = product
    }

    enum CodingKeys: String, CodingKey {
        case product
        case storeID = "store_id"
    }
}

/// Changes to a product.
public typealias ProductPatch = Patch<ProductID, ProductDraft>

/// A page of a store's products: those matching every filter given. `search` matches name,
/// sku or barcode; `barcode` one code exactly; `category` must be one the store's products
/// carry.
public struct ProductListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var category: String?
    public var search: String?
    public var barcode: String?
    public var active: Bool?
    public var stockStatuses: [StockStatus]?
    public var page: PageRequest

    public init(
        storeID: StoreID, category: String? = nil, search: String? = nil, barcode: String? = nil,
        active: Bool? = nil, stockStatuses: [StockStatus]? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.category = category
        self.search = search
        self.barcode = barcode
        self.active = active
        self.stockStatuses = stockStatuses
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case category, search, barcode, active, page
        case storeID = "store_id"
        case stockStatuses = "stock_statuses"
    }
}

/// The products of a store changed after `since` ("0" for all of them).
public typealias ProductChangesRequest = StoreChangesRequest

/// Products as they are now, each changed after the cursor asked from, oldest change first.
/// Products are deactivated rather than deleted, so a product gone from sale comes with
/// `active: false`.
public typealias ProductChangesPage = ChangesPage<Product>

/// Stock to hold for a sale: `lines` of distinct products of the store, for
/// `expires_in_seconds` (1 to a day; 15 minutes when absent). `id` may be chosen by the client.
/// `orderID` is the orders service's alone: the order whose line the stock is for, which then
/// keeps it held until the order ends once the line is stored (the catalog's `OrdersFollower`).
/// `paymentID` is the payments service's alone: the payment whose items the stock is for, which it
/// then follows (the catalog's `PaymentsFollower`).
/// The products a checkout names, of one store.
public struct CheckoutProductsRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var ids: [ProductID]

    public init(storeID: StoreID, ids: [ProductID]) {
        self.storeID = storeID
        self.ids = ids
    }

    enum CodingKeys: String, CodingKey {
        case ids
        case storeID = "store_id"
    }
}

public struct NewReservation: Codable, Sendable, Hashable {
    public var id: ReservationID?
    public var storeID: StoreID
    public var orderID: OrderID?
    public var paymentID: PaymentID?
    public var lines: [Reservation.Line]?
    public var reference: String?
    public var expiresInSeconds: Int?

    public init(
        id: ReservationID? = nil, storeID: StoreID, orderID: OrderID? = nil, paymentID: PaymentID? = nil,
        lines: [Reservation.Line]?, reference: String? = nil, expiresInSeconds: Int? = nil
    ) {
        self.id = id
        self.storeID = storeID
        self.orderID = orderID
        self.paymentID = paymentID
        self.lines = lines
        self.reference = reference
        self.expiresInSeconds = expiresInSeconds
    }

    enum CodingKeys: String, CodingKey {
        case id, lines, reference
        case storeID = "store_id"
        case orderID = "order_id"
        case paymentID = "payment_id"
        case expiresInSeconds = "expires_in_seconds"
    }

    /// The checked request: lines, reference trimmed, seconds to hold; every bad field named at
    /// once.
    public func validated() throws(OrderlyError) -> (lines: [Reservation.Line], reference: String?, seconds: Int) {
        var problems = FieldProblems()
        let lines = self.lines ?? []
        if lines.isEmpty || lines.count > Reservation.maximumLines {
            problems.add("lines", "must hold from 1 to \(Reservation.maximumLines) lines")
        }
        var seen: Set<ProductID> = []
        for (index, line) in lines.enumerated() {
            _ = problems.integer(line.quantity, "lines[\(index)].quantity", in: 1...Product.maximumQuantity)
            if !seen.insert(line.productID).inserted {
                problems.add("lines[\(index)].product_id", "appears in another line; give each product once")
            }
        }
        let reference = problems.optionalText(reference, "reference")
        let seconds = problems.integer(
            expiresInSeconds, "expires_in_seconds", in: 1...Reservation.maximumSeconds, required: false)
        try problems.check()
        return (lines, reference, seconds ?? Reservation.defaultSeconds)
    }
}

/// A page of one product's stock ledger.
public struct StockLedgerRequest: Codable, Sendable, Hashable {
    public var productID: ProductID
    public var page: PageRequest

    public init(productID: ProductID, page: PageRequest = PageRequest()) {
        self.productID = productID
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case page
        case productID = "product_id"
    }
}

/// A stock adjustment of one product.
public struct ProductStockAdjustment: Codable, Sendable, Hashable {
    public var productID: ProductID
    public var adjustment: StockAdjustment

    public init(productID: ProductID, adjustment: StockAdjustment) {
        self.productID = productID
        self.adjustment = adjustment
    }

    enum CodingKeys: String, CodingKey {
        case adjustment
        case productID = "product_id"
    }
}

/// A change of a product's stock as a client asks it: by `adjustment` (signed) or to
/// `new_quantity`, one of them, with a reason.
public struct StockAdjustment: Codable, Sendable, Hashable {
    public var adjustment: Int64?
    public var newQuantity: Int64?
    public var reason: StockReason?
    public var notes: String?
    public var reference: String?
    public var clientCreatedAt: Date?

    public init(
        adjustment: Int64? = nil, newQuantity: Int64? = nil, reason: StockReason? = nil, notes: String? = nil,
        reference: String? = nil, clientCreatedAt: Date? = nil
    ) {
        self.adjustment = adjustment
        self.newQuantity = newQuantity
        self.reason = reason
        self.notes = notes
        self.reference = reference
        self.clientCreatedAt = clientCreatedAt
    }

    enum CodingKeys: String, CodingKey {
        case adjustment, reason, notes, reference
        case newQuantity = "new_quantity"
        case clientCreatedAt = "client_created_at"
    }

    /// The checked request: its text trimmed; every bad field named at once.
    public func validated() throws(OrderlyError) -> (
        change: StockChange, reason: StockReason, notes: String?, reference: String?
    ) {
        var problems = FieldProblems()
        let limit = Product.maximumQuantity
        var change = StockChange.adjustment(0)
        switch (adjustment, newQuantity) {
        case (nil, nil):
            problems.add("adjustment", "or new_quantity is required")
        case (.some, .some):
            problems.add("new_quantity", "cannot be given with adjustment")
        case (let adjustment?, nil):
            if adjustment == 0 || adjustment.magnitude > limit.magnitude {
                problems.add("adjustment", "must be from -\(limit) to \(limit), and not 0")
            }
            change = .adjustment(adjustment)
        case (nil, let quantity?):
            if let quantity = problems.integer(quantity, "new_quantity", in: 0...limit) {
                change = .newQuantity(quantity)
            }
        }
        if reason == nil { problems.add("reason", "is required") }
        if reason == .initial { problems.add("reason", "initial is recorded when the product is created") }
        let notes = problems.optionalText(notes, "notes", maximumLength: 1000)
        let reference = problems.optionalText(reference, "reference")
        try problems.check()
        return (change, reason ?? .adjustment, notes, reference)
    }
}

/// How a stock adjustment changes the quantity on hand.
public enum StockChange: Hashable, Sendable {
    case adjustment(Int64)
    case newQuantity(Int64)
}

/// A store's fields as a client sends them: all optional, so validation names every problem.
/// On creation `name` is required and the rest have defaults; on a patch absent means unchanged.
public struct StoreDraft: Codable, Sendable, Hashable {
    /// Chosen by the client on creation (an approved application's store); a new one otherwise.
    public var id: StoreID?
    public var name: String?
    public var tier: StoreTier?
    public var address: String?
    public var phone: String?
    public var currency: CurrencyCode?
    public var timezone: String?
    public var vatRates: VATRates?
    public var deliveryPricing: DeliveryPricing?
    public var lowStockDefault: Int?
    public var requireClockIn: Bool?
    public var staffRefundLimit: Int64?
    public var acceptingOrders: Bool?
    public var autoAccept: Bool?
    public var minimumOrder: Int64?
    public var imageURL: String?
    public var cuisine: String?
    public var description: String?
    /// Admins only.
    public var commissionBP: Int?
    public var openingHours: [OpeningPeriod]?

    public init(
        id: StoreID? = nil, name: String? = nil, tier: StoreTier? = nil, address: String? = nil, phone: String? = nil,
        currency: CurrencyCode? = nil, timezone: String? = nil, vatRates: VATRates? = nil,
        deliveryPricing: DeliveryPricing? = nil, lowStockDefault: Int? = nil, requireClockIn: Bool? = nil,
        staffRefundLimit: Int64? = nil, imageURL: String? = nil, cuisine: String? = nil,
        openingHours: [OpeningPeriod]? = nil, acceptingOrders: Bool? = nil, autoAccept: Bool? = nil,
        minimumOrder: Int64? = nil, description: String? = nil, commissionBP: Int? = nil
    ) {
        self.id = id
        self.description = description
        self.commissionBP = commissionBP
        self.name = name
        self.acceptingOrders = acceptingOrders
        self.autoAccept = autoAccept
        self.minimumOrder = minimumOrder
        self.tier = tier
        self.address = address
        self.phone = phone
        self.currency = currency
        self.timezone = timezone
        self.vatRates = vatRates
        self.deliveryPricing = deliveryPricing
        self.lowStockDefault = lowStockDefault
        self.requireClockIn = requireClockIn
        self.staffRefundLimit = staffRefundLimit
        self.imageURL = imageURL
        self.cuisine = cuisine
        self.openingHours = openingHours
    }

    enum CodingKeys: String, CodingKey {
        case id, name, tier, address, phone, currency, timezone, cuisine, description
        case commissionBP = "commission_bp"
        case imageURL = "image_url"
        case openingHours = "opening_hours"
        case vatRates = "vat_rates"
        case deliveryPricing = "delivery_pricing"
        case lowStockDefault = "low_stock_default"
        case requireClockIn = "require_clock_in"
        case staffRefundLimit = "staff_refund_limit"
        case acceptingOrders = "accepting_orders"
        case autoAccept = "auto_accept"
        case minimumOrder = "minimum_order"
    }
}

/// A page of the stores the caller sees (`limit`, `cursor`, as `PageRequest`, whose body it
/// extends); with `openNow`, only those open now by their opening hours.
public struct StoreListRequest: Codable, Sendable, Hashable {
    public var openNow: Bool?
    public var limit: Int?
    public var cursor: String?

    public init(openNow: Bool? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.openNow = openNow
        self.limit = limit
        self.cursor = cursor
    }

    enum CodingKeys: String, CodingKey {
        case limit, cursor
        case openNow = "open_now"
    }
}

/// Changes to a store.
public typealias StorePatch = Patch<StoreID, StoreDraft>

/// A store's stock ledger, newest first: one product's entries, those of some reasons, those
/// made from `from` (inclusive) to `to` (exclusive).
public struct StoreStockLedgerRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var productID: ProductID?
    public var reasons: [StockReason]?
    public var from: Date?
    public var to: Date?
    public var page: PageRequest

    public init(
        storeID: StoreID, productID: ProductID? = nil, reasons: [StockReason]? = nil, from: Date? = nil,
        to: Date? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.productID = productID
        self.reasons = reasons
        self.from = from
        self.to = to
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case reasons, from, to, page
        case storeID = "store_id"
        case productID = "product_id"
    }
}
