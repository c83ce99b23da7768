public import Foundation

/// A store's subscription plan on the platform.
public enum StoreTier: String, Hashable, Sendable, Codable, CaseIterable {
    case free, starter, pro, enterprise
}

/// When a store's delivery orders reach the couriers' pool.
///
/// `when_ready` (the default): the order is born `pending` and enters the pool once the store
/// accepts it, for a kitchen that must confirm an order before a courier sets out. `on_create`:
/// a delivery order the store's staff create is `ready` at once and in the pool, for a shop whose
/// parcels are packed when they are entered (a box delivery from the counter). Customers'
/// orders are not affected: they wait for the store's acceptance (or `auto_accept`).
public enum Dispatch: String, Hashable, Sendable, Codable, CaseIterable {
    case onCreate = "on_create"
    case whenReady = "when_ready"
}

/// What a line of an order or sale is: each type has its own VAT rate in a store.
public enum ItemType: String, Hashable, Sendable, Codable, CaseIterable {
    case repair
    case deviceSale = "device_sale"
    case accessory
    case devicePurchase = "device_purchase"
    case product
}

/// A store: the tenant whose staff create orders and sell, with its money and tax settings.
public struct Store: Hashable, Sendable, Codable {
    public var id: StoreID
    public var name: String
    public var tier: StoreTier
    public var address: String?
    public var phone: String?
    public var currency: CurrencyCode
    /// An IANA time zone name (`Asia/Jerusalem`).
    public var timezone: String
    public var vatRates: VATRates
    public var deliveryPricing: DeliveryPricing
    /// The low-stock threshold products start with.
    public var lowStockDefault: Int
    /// Whether staff must be clocked in to ring up payments (off unless the store turns it on).
    public var requireClockIn: Bool
    /// The most a staff member may refund at once of a payment they took, in minor units; 0 (the
    /// default) leaves refunds to the store's owners and managers.
    public var staffRefundLimit: Int64
    /// Whether customers may order now: the owner's pause switch (on unless turned off).
    public var acceptingOrders: Bool
    /// Whether the store accepts customers' orders as they arrive; off unless turned on.
    public var autoAccept: Bool
    /// When the store's own delivery orders reach the couriers (`Dispatch`); `when_ready` unless set.
    public var dispatch: Dispatch
    /// The workflow its staff's orders follow unless an order names its own (`standard` unless set;
    /// a repair shop's is `repair`). Customers' orders always follow the standard one.
    public var workflow: OrderWorkflow
    /// The least a customer's order may come to, items only, in minor units; 0 by default.
    public var minimumOrder: Int64
    // The public profile customers see, beside the name, address and phone.
    public var imageURL: String?
    public var cuisine: String?
    /// A few words on the store, as customers read them.
    public var description: String?
    /// The platform's commission on the store's payments, in basis points of each payment's
    /// amount without its tip (0 by default); only admins change it, and only admins,
    /// accountants and the store's owners and managers read it (nil to everyone else).
    public var commissionBP: Int?
    /// In the store's time zone; a store without any is never open now.
    public var openingHours: [OpeningPeriod]?
    /// Where the store is: where its couriers collect, and what distances are measured from.
    public var location: GeoPoint?
    /// Where it delivers customers' orders; a store without one (or without a location) is not
    /// found by a search near a place, and takes customers' deliveries anywhere.
    public var deliveryArea: DeliveryArea?
    /// How long an order usually takes to prepare, as customers are told; nil when not said.
    public var preparationMinutes: Int?
    /// Whether this is the public profile alone (`publicProfile`): decoded from one, or to be
    /// encoded as one.
    public private(set) var isPublicProfile = false
    /// How far the place a list was asked `near` is, in metres, and what a delivery there costs
    /// (one box); set on the stores of such a list, never stored.
    public var distanceMetres: Int?
    public var deliveryFee: Int64?
    public var version: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: StoreID, name: String, tier: StoreTier, address: String?, phone: String?, currency: CurrencyCode,
        timezone: String, vatRates: VATRates, deliveryPricing: DeliveryPricing, lowStockDefault: Int,
        version: Int64, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.name = name
        self.tier = tier
        self.address = address
        self.phone = phone
        self.currency = currency
        self.timezone = timezone
        self.vatRates = vatRates
        self.deliveryPricing = deliveryPricing
        self.lowStockDefault = lowStockDefault
        self.requireClockIn = false
        self.staffRefundLimit = 0
        self.acceptingOrders = true
        self.autoAccept = false
        self.dispatch = .whenReady
        self.workflow = .standard
        self.minimumOrder = 0
        self.imageURL = nil
        self.cuisine = nil
        self.description = nil
        self.commissionBP = 0
        self.openingHours = nil
        self.location = nil
        self.deliveryArea = nil
        self.preparationMinutes = nil
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, tier, address, phone, currency, timezone, version
        case vatRates = "vat_rates"
        case deliveryPricing = "delivery_pricing"
        case lowStockDefault = "low_stock_default"
        case requireClockIn = "require_clock_in"
        case staffRefundLimit = "staff_refund_limit"
        case acceptingOrders = "accepting_orders"
        case autoAccept = "auto_accept"
        case dispatch, workflow
        case minimumOrder = "minimum_order"
        case imageURL = "image_url"
        case cuisine, description
        case commissionBP = "commission_bp"
        case openingHours = "opening_hours"
        case isOpenNow = "is_open_now"
        case location
        case deliveryArea = "delivery_area"
        case preparationMinutes = "preparation_minutes"
        case distanceMetres = "distance_m"
        case deliveryFee = "delivery_fee"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// The store as customers, couriers and visitors without an account read it: without what
    /// is the store's and the platform's business alone (its tier, VAT rates, stock threshold,
    /// clock-in rule, refund limit, how it accepts and dispatches orders, its workflow and
    /// commission), which are left out when it is encoded.
    public var publicProfile: Store {
        var profile = self
        profile.isPublicProfile = true
        profile.commissionBP = nil
        return profile
    }

    /// Refuses a customer's delivery to `place` that the store's area does not hold: 422
    /// `outside_delivery_area`, or 400 naming `address.location` when the address does not say
    /// where it is and the store delivers within an area.
    public func checkDelivery(to place: GeoPoint?) throws(OrderlyError) {
        guard let deliveryArea, let location else { return }
        guard let place else {
            throw OrderlyError.invalidFields(["address.location": "is required: the store delivers within an area"])
        }
        guard deliveryArea.contains(place, centre: location) else {
            throw OrderlyError(.outsideDeliveryArea, "\(name) does not deliver to this address")
        }
    }

    /// What the distance to `place` adds to a delivery's fee (`DeliveryPricing.byDistance`):
    /// nothing when either end is not on the map.
    public func distanceSurcharge(to place: GeoPoint?) -> Int64 {
        guard let place, let location else { return 0 }
        return deliveryPricing.surcharge(forMetres: Int(location.distance(to: place).rounded()))
    }

    /// Whether the store is open at `date` by its opening hours, in its time zone.
    public func isOpen(at date: Date) -> Bool {
        guard let openingHours, let zone = TimeZone(identifier: timezone) else { return false }
        return openingHours.isOpen(at: date, in: zone)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(StoreID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        // A public profile leaves out the internals, which take their defaults.
        let tier = try container.decodeIfPresent(StoreTier.self, forKey: .tier)
        isPublicProfile = tier == nil
        self.tier = tier ?? .free
        address = try container.decodeIfPresent(String.self, forKey: .address)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        currency = try container.decode(CurrencyCode.self, forKey: .currency)
        timezone = try container.decode(String.self, forKey: .timezone)
        vatRates = try container.decodeIfPresent(VATRates.self, forKey: .vatRates) ?? .standard
        deliveryPricing = try container.decode(DeliveryPricing.self, forKey: .deliveryPricing)
        lowStockDefault = try container.decodeIfPresent(Int.self, forKey: .lowStockDefault) ?? 5
        requireClockIn = try container.decodeIfPresent(Bool.self, forKey: .requireClockIn) ?? false
        staffRefundLimit = try container.decodeIfPresent(Int64.self, forKey: .staffRefundLimit) ?? 0
        acceptingOrders = try container.decodeIfPresent(Bool.self, forKey: .acceptingOrders) ?? true
        autoAccept = try container.decodeIfPresent(Bool.self, forKey: .autoAccept) ?? false
        dispatch = try container.decodeIfPresent(Dispatch.self, forKey: .dispatch) ?? .whenReady
        workflow = try container.decodeIfPresent(OrderWorkflow.self, forKey: .workflow) ?? .standard
        minimumOrder = try container.decodeIfPresent(Int64.self, forKey: .minimumOrder) ?? 0
        imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
        cuisine = try container.decodeIfPresent(String.self, forKey: .cuisine)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        commissionBP = try container.decodeIfPresent(Int.self, forKey: .commissionBP)
        openingHours = try container.decodeIfPresent([OpeningPeriod].self, forKey: .openingHours)
        location = try container.decodeIfPresent(GeoPoint.self, forKey: .location)
        deliveryArea = try container.decodeIfPresent(DeliveryArea.self, forKey: .deliveryArea)
        preparationMinutes = try container.decodeIfPresent(Int.self, forKey: .preparationMinutes)
        distanceMetres = try container.decodeIfPresent(Int.self, forKey: .distanceMetres)
        deliveryFee = try container.decodeIfPresent(Int64.self, forKey: .deliveryFee)
        version = try container.decode(Int64.self, forKey: .version)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
    }

    /// Writes the stored fields (a public profile's alone) and `is_open_now` as of the moment of
    /// writing, which decoding ignores.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(address, forKey: .address)
        try container.encodeIfPresent(phone, forKey: .phone)
        try container.encode(currency, forKey: .currency)
        try container.encode(timezone, forKey: .timezone)
        try container.encode(deliveryPricing, forKey: .deliveryPricing)
        if !isPublicProfile {
            try container.encode(tier, forKey: .tier)
            try container.encode(vatRates, forKey: .vatRates)
            try container.encode(lowStockDefault, forKey: .lowStockDefault)
            try container.encode(requireClockIn, forKey: .requireClockIn)
            try container.encode(staffRefundLimit, forKey: .staffRefundLimit)
            try container.encode(autoAccept, forKey: .autoAccept)
            try container.encode(dispatch, forKey: .dispatch)
            try container.encode(workflow, forKey: .workflow)
            try container.encodeIfPresent(commissionBP, forKey: .commissionBP)
        }
        try container.encode(acceptingOrders, forKey: .acceptingOrders)
        try container.encode(minimumOrder, forKey: .minimumOrder)
        try container.encodeIfPresent(imageURL, forKey: .imageURL)
        try container.encodeIfPresent(cuisine, forKey: .cuisine)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(openingHours, forKey: .openingHours)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encodeIfPresent(deliveryArea, forKey: .deliveryArea)
        try container.encodeIfPresent(preparationMinutes, forKey: .preparationMinutes)
        try container.encodeIfPresent(distanceMetres, forKey: .distanceMetres)
        try container.encodeIfPresent(deliveryFee, forKey: .deliveryFee)
        try container.encode(isOpen(at: Date()), forKey: .isOpenNow)
        try container.encode(version, forKey: .version)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }

    /// Whether `name` is a time zone this system knows.
    public static func isKnownTimeZone(_ name: String) -> Bool { TimeZone(identifier: name) != nil }
}
