import Contracts
import Domain
import Events
import Foundation
import Redis
import Runtime
import SQLKit
import ServiceLifecycle
import Storage

/// A store's statistics, served from a read model the payments service keeps from its own
/// events: `payment.completed` and `payment.refunded` add to one row per store, day, staff
/// member and method (`stats_days`) and one per store, day and product (`stats_products`),
/// each event once. A read sums the rows of the days asked for, never the payments.
struct StatsProjection: Sendable {
    let database: Database
    let payments: PaymentsRepository

    static let consumer = "payments.stats"

    func consumer(_ environment: ServiceEnvironment) -> any Service {
        environment.consumer(
            of: PaymentsAPI.service, group: PaymentsAPI.service,
            types: [PaymentsAPI.Events.completed, PaymentsAPI.Events.refunded]
        ) { try await apply($0) }
    }

    func apply(_ event: DomainEvent) async throws {
        let payments = self.payments
        if event.type == PaymentsAPI.Events.refunded {
            let refunded = try event.payload.decode(as: PaymentRefunded.self)
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                let zone = try await payments.header(of: refunded.payment.id, in: transaction.sql)?.timezone
                let (row, _) = StatsContribution.refund(refunded.refund, of: refunded.payment, zone: zone)
                try await Self.add(row, in: transaction)
            }
        } else {
            let payment = try event.payload.decode(as: Payment.self)
            try await database.applyOnce(event, consumer: Self.consumer) { transaction in
                let zone = try await payments.header(of: payment.id, in: transaction.sql)?.timezone
                let (row, products) = StatsContribution.sale(payment, zone: zone)
                try await Self.add(row, in: transaction)
                for product in products { try await Self.add(product, in: transaction) }
            }
        }
    }

    private static func add(_ row: StatsContribution.Row, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO stats_days (store_id, day, staff_id, method, sales, takings, tips, refunds, refunds_count)
            VALUES (\(bind: row.store.description), \(bind: row.day), \(bind: row.staff.description),
                \(bind: row.method.rawValue), \(bind: row.sales), \(bind: row.takings), \(bind: row.tips),
                \(bind: row.refunds), \(bind: row.refundsCount))
            ON CONFLICT (store_id, day, staff_id, method) DO UPDATE SET
                sales = stats_days.sales + excluded.sales, takings = stats_days.takings + excluded.takings,
                tips = stats_days.tips + excluded.tips, refunds = stats_days.refunds + excluded.refunds,
                refunds_count = stats_days.refunds_count + excluded.refunds_count
            """
        ).run()
    }

    private static func add(_ row: StatsContribution.ProductRow, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO stats_products (store_id, day, product_key, product_id, name, quantity, revenue)
            VALUES (\(bind: row.store.description), \(bind: row.day), \(bind: row.key), \(bind: row.productID?.description),
                \(bind: row.name), \(bind: row.quantity), \(bind: row.revenue))
            ON CONFLICT (store_id, day, product_key) DO UPDATE SET
                name = excluded.name, quantity = stats_products.quantity + excluded.quantity,
                revenue = stats_products.revenue + excluded.revenue
            """
        ).run()
    }

    /// The store's statistics over `days`, from the read model.
    func read(_ store: StoreID, _ days: StatsDays, timezone: String) async throws -> StoreStats {
        let (rows, products, names) = try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT day, staff_id, method, sales, takings, tips, refunds, refunds_count FROM stats_days
                WHERE store_id = \(bind: store.description) AND day >= \(bind: days.from) AND day <= \(bind: days.to)
                """
            ).all().map { row in
                StatsContribution.Row(
                    store: store, day: try row.decode(column: "day", as: String.self),
                    staff: try Self.id(UserID.self, row, "staff_id"),
                    method: try Self.method(row), sales: try row.decode(column: "sales", as: Int64.self),
                    takings: try row.decode(column: "takings", as: Int64.self),
                    tips: try row.decode(column: "tips", as: Int64.self),
                    refunds: try row.decode(column: "refunds", as: Int64.self),
                    refundsCount: try row.decode(column: "refunds_count", as: Int64.self))
            }
            let products = try await sql.raw(
                """
                SELECT product_key, MAX(product_id) AS product_id, MAX(name) AS name, SUM(quantity) AS quantity,
                    SUM(revenue) AS revenue
                FROM stats_products
                WHERE store_id = \(bind: store.description) AND day >= \(bind: days.from) AND day <= \(bind: days.to)
                GROUP BY product_key ORDER BY SUM(quantity) DESC, product_key LIMIT \(bind: StatsContribution.topProducts)
                """
            ).all().map { row in
                StoreStats.ProductFigures(
                    productID: try row.decode(column: "product_id", as: String?.self).flatMap(ProductID.init),
                    name: try row.decode(column: "name", as: String.self),
                    quantity: try row.decode(column: "quantity", as: Int64.self),
                    revenue: try row.decode(column: "revenue", as: Int64.self))
            }
            return (rows, products, try await Self.names(of: rows, payments, in: sql))
        }
        return StatsContribution.assemble(
            store, days, timezone: timezone, rows: rows, topProducts: products, names: names)
    }

    /// The same statistics recomputed from the payments and refunds themselves, as the read
    /// model should hold them: what the tests check it against.
    func recompute(_ store: StoreID, _ days: StatsDays, timezone: String) async throws -> StoreStats {
        let payments = self.payments
        let (sales, refunds, zones) = try await database.read { sql in
            let sales = try await sql.raw(
                "SELECT doc FROM payments WHERE store_id = \(bind: store.description) AND status IN ('completed', 'partially_refunded', 'refunded')"
            ).all().map { try StoredDocument.decode(Payment.self, from: $0) }
            let refunds = try await sql.raw("SELECT doc FROM refunds WHERE store_id = \(bind: store.description)")
                .all().map { try StoredDocument.decode(Refund.self, from: $0) }
            var zones: [PaymentID: String] = [:]
            for payment in sales { zones[payment.id] = try await payments.header(of: payment.id, in: sql)?.timezone }
            return (sales, refunds, zones)
        }
        var rows: [StatsContribution.Row] = []
        var products: [String: StoreStats.ProductFigures] = [:]
        let byID = Dictionary(uniqueKeysWithValues: sales.map { ($0.id, $0) })
        for payment in sales {
            let (row, lines) = StatsContribution.sale(payment, zone: zones[payment.id])
            rows.append(row)
            for line in lines where days.contains(line.day) {
                var figures =
                    products[line.key]
                    ?? StoreStats.ProductFigures(productID: line.productID, name: line.name, quantity: 0, revenue: 0)
                figures.quantity += line.quantity
                figures.revenue += line.revenue
                products[line.key] = figures
            }
        }
        for refund in refunds {
            guard let payment = byID[refund.paymentID] else { continue }
            rows.append(StatsContribution.refund(refund, of: payment, zone: zones[payment.id]).row)
        }
        let top = products.sorted { ($0.value.quantity, $1.key) > ($1.value.quantity, $0.key) }
            .prefix(StatsContribution.topProducts).map(\.value)
        let names = try await database.read { try await Self.names(of: rows, payments, in: $0) }
        return StatsContribution.assemble(
            store, days, timezone: timezone, rows: rows.filter { days.contains($0.day) }, topProducts: Array(top),
            names: names)
    }

    /// The names of the staff members the rows count.
    private static func names(
        of rows: [StatsContribution.Row], _ payments: PaymentsRepository, in sql: any SQLDatabase
    ) async throws -> [UserID: String] {
        var names: [UserID: String] = [:]
        for staff in Set(rows.map(\.staff)) { names[staff] = try await payments.staffMember(staff, in: sql)?.name }
        return names
    }

    private static func id<Tag>(_ type: Identifier<Tag>.Type, _ row: any SQLRow, _ column: String) throws
        -> Identifier<Tag>
    {
        guard let id = Identifier<Tag>(try row.decode(column: column, as: String.self)) else {
            throw StorageError.unexpected("a statistics row's \(column) could not be read")
        }
        return id
    }

    private static func method(_ row: any SQLRow) throws -> PaymentMethod {
        guard let method = PaymentMethod(rawValue: try row.decode(column: "method", as: String.self)) else {
            throw StorageError.unexpected("a statistics row's method could not be read")
        }
        return method
    }
}

/// The days a statistics read covers, `YYYY-MM-DD` in the store's time zone, both included.
struct StatsDays: Sendable {
    var from: String
    var to: String
    /// Every day from `from` to `to`, in order.
    var all: [String]

    /// The most days one read covers.
    static let maximum = 366

    /// Checks `from` and `to` (400 naming either), at most `maximum` days apart.
    init(from: String?, to: String?) throws(OrderlyError) {
        var problems = FieldProblems()
        let first = Self.parse(from, "from", &problems)
        let last = Self.parse(to, "to", &problems)
        try problems.check()
        guard let first, let last, first <= last else {
            throw OrderlyError.invalidFields(["to": "must not be before from"])
        }
        var days: [String] = []
        var day = first
        while day <= last {
            guard days.count < Self.maximum else {
                throw OrderlyError.invalidFields(["to": "must be at most \(Self.maximum) days after from"])
            }
            days.append(Self.format(day))
            day = Self.calendar.date(byAdding: .day, value: 1, to: day)!
        }
        self.from = days.first!
        self.to = days.last!
        self.all = days
    }

    func contains(_ day: String) -> Bool { day >= from && day <= to }

    /// Days are counted on a UTC calendar: each stands for a date, whatever the zone.
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func parse(_ text: String?, _ field: String, _ problems: inout FieldProblems) -> Date? {
        guard let text else {
            problems.add(field, "is required")
            return nil
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            format(date) == text
        else {
            problems.add(field, "must be a date such as 2026-11-25")
            return nil
        }
        return date
    }

    private static func format(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}

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

    /// The statistics of `days` from the rows that fall in them.
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
        let byStaff = Dictionary(grouping: rows, by: \.staff)
        let byMethod = Dictionary(grouping: rows, by: \.method)
        return StoreStats(
            storeID: store, from: days.from, to: days.to, timezone: timezone, totals: figures(rows),
            days: days.all.map { StoreStats.Day(date: $0, figures: figures(byDay[$0] ?? [])) },
            staff: byStaff.keys.sorted { $0.description < $1.description }.map {
                StoreStats.StaffFigures(staffID: $0, name: names[$0], figures: figures(byStaff[$0] ?? []))
            },
            methods: PaymentMethod.allCases.compactMap { method in
                byMethod[method].map { StoreStats.MethodFigures(method: method, figures: figures($0)) }
            },
            topProducts: topProducts)
    }
}
