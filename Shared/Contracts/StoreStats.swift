public import Domain
import Foundation
import WireContract

/// What a store took over some days: `revenue` is what completed payments took (tips included)
/// less what refunds gave back; `average_ticket` is what a completed payment took on average.
/// A payment counts on the day it completed, a refund on the day it was given, each day in the
/// store's time zone. By staff member and method, refunds count with the payment they give
/// back from. `days` has each day of a range of up to 366 days, and is empty for a longer one;
/// `months` has each month the range touches (those at its ends counting its days alone).
public struct StoreStats: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var from: String
    public var to: String
    public var timezone: String
    public var totals: Figures
    public var days: [Day]
    public var months: [Month]
    public var staff: [StaffFigures]
    public var methods: [MethodFigures]
    public var topProducts: [ProductFigures]

    public struct Figures: Codable, Sendable, Hashable {
        public var revenue: Int64
        public var salesCount: Int64
        public var averageTicket: Int64
        public var tips: Int64
        public var refunds: Int64
        public var refundsCount: Int64

        public init(sales: Int64 = 0, takings: Int64 = 0, tips: Int64 = 0, refunds: Int64 = 0, refundsCount: Int64 = 0)
        {
            self.revenue = takings - refunds
            self.salesCount = sales
            self.averageTicket = sales > 0 ? takings / sales : 0
            self.tips = tips
            self.refunds = refunds
            self.refundsCount = refundsCount
        }

        enum CodingKeys: String, CodingKey {
            case revenue, tips, refunds
            case salesCount = "sales_count"
            case averageTicket = "average_ticket"
            case refundsCount = "refunds_count"
        }
    }

    public struct Day: Codable, Sendable, Hashable {
        public var date: String
        public var figures: Figures

        public init(date: String, figures: Figures) {
            self.date = date
            self.figures = figures
        }

        enum CodingKeys: String, CodingKey { case date, figures }
    }

    public struct Month: Codable, Sendable, Hashable {
        /// `YYYY-MM`.
        public var month: String
        public var figures: Figures

        public init(month: String, figures: Figures) {
            self.month = month
            self.figures = figures
        }

        enum CodingKeys: String, CodingKey { case month, figures }
    }

    public struct StaffFigures: Codable, Sendable, Hashable {
        public var staffID: UserID
        public var name: String?
        public var figures: Figures

        public init(staffID: UserID, name: String?, figures: Figures) {
            self.staffID = staffID
            self.name = name
            self.figures = figures
        }

        enum CodingKeys: String, CodingKey {
            case name, figures
            case staffID = "staff_id"
        }
    }

    public struct MethodFigures: Codable, Sendable, Hashable {
        public var method: PaymentMethod
        public var figures: Figures

        public init(method: PaymentMethod, figures: Figures) {
            self.method = method
            self.figures = figures
        }
    }

    /// A product (or a typed line, by name) by units sold.
    public struct ProductFigures: Codable, Sendable, Hashable {
        public var productID: ProductID?
        public var name: String
        public var quantity: Int64
        public var revenue: Int64

        public init(productID: ProductID?, name: String, quantity: Int64, revenue: Int64) {
            self.productID = productID
            self.name = name
            self.quantity = quantity
            self.revenue = revenue
        }

        enum CodingKeys: String, CodingKey {
            case name, quantity, revenue
            case productID = "product_id"
        }
    }

    public init(
        storeID: StoreID, from: String, to: String, timezone: String, totals: Figures, days: [Day], months: [Month],
        staff: [StaffFigures], methods: [MethodFigures], topProducts: [ProductFigures]
    ) {
        self.storeID = storeID
        self.from = from
        self.to = to
        self.timezone = timezone
        self.totals = totals
        self.days = days
        self.months = months
        self.staff = staff
        self.methods = methods
        self.topProducts = topProducts
    }

    enum CodingKeys: String, CodingKey {
        case from, to, timezone, totals, days, months, staff, methods
        case storeID = "store_id"
        case topProducts = "top_products"
    }
}
