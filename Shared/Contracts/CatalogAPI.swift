public import Domain
public import Wire

/// The catalog service's methods: stores (and, later, products and stock).
public enum CatalogAPI {
    public static let service = "catalog"
    /// Admins only.
    public static let createStore = WireMethod<StoreDraft, Store>("catalog.stores.create", safeToRetry: false)
    public static let getStore = WireMethod<ResourceRef<StoreID>, Store>("catalog.stores.get", safeToRetry: true)
    /// Admins, couriers and customers see every store; store users their own.
    public static let listStores = WireMethod<PageRequest, Page<Store>>("catalog.stores.list", safeToRetry: true)
    /// Admins, and the store's owner and managers.
    public static let updateStore = WireMethod<StorePatch, Store>("catalog.stores.update", safeToRetry: false)

    /// The events the catalog publishes on `orderly:events:catalog`, each with the store as its
    /// payload.
    public enum Events {
        public static let storeCreated = "store.created"
        public static let storeUpdated = "store.updated"
    }
}

/// A store's fields as a client sends them: all optional, so validation names every problem.
/// On creation `name` is required and the rest have defaults; on a patch absent means unchanged.
public struct StoreDraft: Codable, Sendable, Hashable {
    public var name: String?
    public var tier: StoreTier?
    public var address: String?
    public var phone: String?
    public var currency: CurrencyCode?
    public var timezone: String?
    public var vatRates: VATRates?
    public var deliveryPricing: DeliveryPricing?
    public var lowStockDefault: Int?

    public init(
        name: String? = nil, tier: StoreTier? = nil, address: String? = nil, phone: String? = nil,
        currency: CurrencyCode? = nil, timezone: String? = nil, vatRates: VATRates? = nil,
        deliveryPricing: DeliveryPricing? = nil, lowStockDefault: Int? = nil
    ) {
        self.name = name
        self.tier = tier
        self.address = address
        self.phone = phone
        self.currency = currency
        self.timezone = timezone
        self.vatRates = vatRates
        self.deliveryPricing = deliveryPricing
        self.lowStockDefault = lowStockDefault
    }

    enum CodingKeys: String, CodingKey {
        case name, tier, address, phone, currency, timezone
        case vatRates = "vat_rates"
        case deliveryPricing = "delivery_pricing"
        case lowStockDefault = "low_stock_default"
    }
}

/// Changes to a store.
public typealias StorePatch = Patch<StoreID, StoreDraft>
