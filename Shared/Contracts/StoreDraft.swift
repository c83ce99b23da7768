public import Domain
import Foundation
import WireContract

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
    public var dispatch: Dispatch?
    public var workflow: OrderWorkflow?
    public var minimumOrder: Int64?
    public var imageURL: String?
    public var cuisine: String?
    public var description: String?
    /// Admins only.
    public var commissionBP: Int?
    public var openingHours: [OpeningPeriod]?
    public var location: GeoPoint?
    /// Needs the store's location, in the draft or already set.
    public var deliveryArea: DeliveryArea?
    public var preparationMinutes: Int?

    public init(
        id: StoreID? = nil, name: String? = nil, tier: StoreTier? = nil, address: String? = nil, phone: String? = nil,
        currency: CurrencyCode? = nil, timezone: String? = nil, vatRates: VATRates? = nil,
        deliveryPricing: DeliveryPricing? = nil, lowStockDefault: Int? = nil, requireClockIn: Bool? = nil,
        staffRefundLimit: Int64? = nil, imageURL: String? = nil, cuisine: String? = nil,
        openingHours: [OpeningPeriod]? = nil, acceptingOrders: Bool? = nil, autoAccept: Bool? = nil,
        minimumOrder: Int64? = nil, description: String? = nil, commissionBP: Int? = nil, dispatch: Dispatch? = nil,
        workflow: OrderWorkflow? = nil, location: GeoPoint? = nil, deliveryArea: DeliveryArea? = nil,
        preparationMinutes: Int? = nil
    ) {
        self.location = location
        self.deliveryArea = deliveryArea
        self.preparationMinutes = preparationMinutes
        self.dispatch = dispatch
        self.workflow = workflow
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
        case dispatch, workflow
        case minimumOrder = "minimum_order"
        case location
        case deliveryArea = "delivery_area"
        case preparationMinutes = "preparation_minutes"
    }

    /// The new store the draft makes of `skeleton` (a blank store carrying the defaults):
    /// `name` is required, and every other field the draft carries replaces the default. Throws
    /// one error naming every bad field.
    public func validated(creating skeleton: Store) throws(OrderlyError) -> Store {
        try validated(onto: skeleton, creating: true)
    }

    /// `current` with the fields the draft carries changed (absent means unchanged; a blank
    /// optional text clears it); the id cannot change. Throws one error naming every bad field.
    public func validated(updating current: Store) throws(OrderlyError) -> Store {
        try validated(onto: current, creating: false)
    }

    /// `store` with the fields the draft carries checked and applied; on creation `name` is
    /// required.
    private func validated(onto store: Store, creating: Bool) throws(OrderlyError) -> Store {
        var store = store
        var problems = FieldProblems()
        if !creating, self.id != nil { problems.add("id", "cannot be changed") }
        if creating || self.name != nil { store.name = problems.text(self.name, "name") }
        if let tier = self.tier { store.tier = tier }
        if let address = self.address { store.address = problems.optionalText(address, "address", maximumLength: 500) }
        if let phone = self.phone { store.phone = problems.optionalText(phone, "phone", maximumLength: 32) }
        if let currency = self.currency { store.currency = currency }
        // A blank time zone, like any blank optional text, counts as absent.
        if let timezone = self.timezone, !timezone.trimmingWhitespace().isEmpty {
            if Store.isKnownTimeZone(timezone) {
                store.timezone = timezone
            } else {
                problems.add("timezone", "must be an IANA time zone such as Asia/Jerusalem")
            }
        }
        if let rates = self.vatRates {
            rates.validate(into: &problems, field: "vat_rates")
            store.vatRates = rates
        }
        if let pricing = self.deliveryPricing {
            pricing.validate(into: &problems, field: "delivery_pricing")
            store.deliveryPricing = pricing
        }
        if let threshold = problems.integer(
            self.lowStockDefault, "low_stock_default", in: 0...1_000_000, required: false)
        {
            store.lowStockDefault = threshold
        }
        if let required = self.requireClockIn { store.requireClockIn = required }
        if let accepting = self.acceptingOrders { store.acceptingOrders = accepting }
        if let automatic = self.autoAccept { store.autoAccept = automatic }
        if let dispatch = self.dispatch { store.dispatch = dispatch }
        if let workflow = self.workflow { store.workflow = workflow }
        if let minimum = problems.integer(
            self.minimumOrder, "minimum_order", in: 0...Payment.maximumAmount, required: false)
        {
            store.minimumOrder = minimum
        }
        if let limit = problems.integer(
            self.staffRefundLimit, "staff_refund_limit", in: 0...Payment.maximumAmount, required: false)
        {
            store.staffRefundLimit = limit
        }
        if let imageURL = self.imageURL { store.imageURL = problems.webAddress(imageURL, "image_url") }
        if let cuisine = self.cuisine { store.cuisine = problems.optionalText(cuisine, "cuisine", maximumLength: 100) }
        if let bp = problems.integer(self.commissionBP, "commission_bp", in: 0...10_000, required: false) {
            store.commissionBP = bp
        }
        if let description = self.description {
            store.description = problems.optionalText(
                description, "description", maximumLength: 2000, allowingInvisible: true)
        }
        if let hours = self.openingHours {
            hours.validate(into: &problems, field: "opening_hours")
            store.openingHours = hours.isEmpty ? nil : hours
        }
        if let location = self.location {
            location.validate(into: &problems, field: "location")
            store.location = location
        }
        if let area = self.deliveryArea {
            area.validate(into: &problems, field: "delivery_area")
            store.deliveryArea = area
            if store.location == nil { problems.add("location", "is required with delivery_area") }
        }
        if let minutes = problems.integer(self.preparationMinutes, "preparation_minutes", in: 1...1440, required: false)
        {
            store.preparationMinutes = minutes
        }
        try problems.check()
        return store
    }
}
