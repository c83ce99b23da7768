import Contracts
import Domain
import Foundation

/// What one completed payment or one refund adds to the statistics, and how the rows of some
/// days add up to a `StoreStats`: shared by the read model and its recomputation.
enum StatsContribution {
    static let topProducts = 10

    struct Row: Sendable {
        var store: StoreID
        var day: String
        var staff: UserID
        var method: PaymentMethod
        var sales: Int64 = 0
        var takings: Int64 = 0
        var tips: Int64 = 0
        var refunds: Int64 = 0
        var refundsCount: Int64 = 0
    }

    struct ProductRow: Sendable {
        var store: StoreID
        var day: String
        var key: String
        var productID: ProductID?
        var name: String
        var quantity: Int64
        var revenue: Int64
    }

    /// The date of `time` in the time zone named `zone` (UTC when unknown): the store's day,
    /// whatever its clocks did that day.
    static func day(of time: Date, in zone: String?) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: time)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    static func sale(_ payment: Payment, zone: String?) -> (row: Row, products: [ProductRow]) {
        let day = day(of: payment.completedAt ?? payment.updatedAt, in: zone)
        let row = Row(
            store: payment.storeID, day: day, staff: payment.staffID, method: payment.method, sales: 1,
            takings: payment.amount, tips: payment.tip)
        let products = payment.items.map { item in
            ProductRow(
                store: payment.storeID, day: day, key: item.productID?.description ?? "line:\(item.name)",
                productID: item.productID, name: item.name, quantity: item.quantity, revenue: item.total)
        }
        return (row, products)
    }

    static func refund(_ refund: Refund, of payment: Payment, zone: String?) -> (row: Row, products: [ProductRow]) {
        let row = Row(
            store: payment.storeID, day: day(of: refund.createdAt, in: zone), staff: payment.staffID,
            method: payment.method, refunds: refund.amount, refundsCount: 1)
        return (row, [])
    }

    /// The statistics of `days` from the rows that fall in them: rows of a day (`YYYY-MM-DD`),
    /// or of a whole month (`YYYY-MM`) for a range read by month.
    static func assemble(
        _ store: StoreID, _ days: StatsDays, timezone: String, rows: [Row], topProducts: [StoreStats.ProductFigures],
        names: [UserID: String]
    ) -> StoreStats {
        func figures(_ rows: [Row]) -> StoreStats.Figures {
            StoreStats.Figures(
                sales: rows.reduce(0) { $0 + $1.sales }, takings: rows.reduce(0) { $0 + $1.takings },
                tips: rows.reduce(0) { $0 + $1.tips }, refunds: rows.reduce(0) { $0 + $1.refunds },
                refundsCount: rows.reduce(0) { $0 + $1.refundsCount })
        }
        let byDay = Dictionary(grouping: rows, by: \.day)
        let byMonth = Dictionary(grouping: rows) { String($0.day.prefix(7)) }
        let byStaff = Dictionary(grouping: rows, by: \.staff)
        let byMethod = Dictionary(grouping: rows, by: \.method)
        return StoreStats(
            storeID: store, from: days.from, to: days.to, timezone: timezone, totals: figures(rows),
            days: days.all.map { StoreStats.Day(date: $0, figures: figures(byDay[$0] ?? [])) },
            months: days.months.map { StoreStats.Month(month: $0, figures: figures(byMonth[$0] ?? [])) },
            staff: byStaff.keys.sorted { $0.description < $1.description }.map {
                StoreStats.StaffFigures(staffID: $0, name: names[$0], figures: figures(byStaff[$0] ?? []))
            },
            methods: PaymentMethod.allCases.compactMap { method in
                byMethod[method].map { StoreStats.MethodFigures(method: method, figures: figures($0)) }
            },
            topProducts: topProducts)
    }
}
