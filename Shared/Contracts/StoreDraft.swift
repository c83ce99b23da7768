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
