import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The payments service's SQL of a store's statistics: the read model (`stats_days`, one row per
/// store, day, staff member and method, and `stats_products`, one per store, day and product;
/// and the same per month, `stats_months` and `stats_product_months`, which the database keeps
/// from the days: `StatsMonths`) that `LedgerFollower` adds each completed payment and refund
/// to, and its reads. A read sums the rows of the days asked
/// for (of the months wholly inside a long range, and the days at its ends), never the payments.
struct StatsRepository: Sendable {
    let database: Database

    /// Adds a payment's or refund's row to its day's (and so, by the database's trigger, to its
    /// month's: `StatsMonths`).
    func add(_ row: StatsContribution.Row, in transaction: Transaction) async throws {
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

    /// Adds a sold product's row to its day's (and so to its month's).
    func add(_ row: StatsContribution.ProductRow, in transaction: Transaction) async throws {
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

    /// The store's statistics over `days`, from the read model: day by day, or for a range
    /// read by month, the months wholly inside it and the days at its ends.
    func read(_ store: StoreID, _ days: StatsDays, timezone: String) async throws -> StoreStats {
        let (rows, products, names) = try await database.read { sql in
            // Each source: a table, its period column and the periods read of it.
            var sources: [(table: String, products: String, column: String, range: ClosedRange<String>)] = []
            if days.byMonth {
                let split = days.split
                if let months = split.months {
                    sources.append(("stats_months", "stats_product_months", "month", months))
                }
                sources += split.days.map { ("stats_days", "stats_products", "day", $0) }
            } else {
                sources.append(("stats_days", "stats_products", "day", days.from...days.to))
            }
            var rows: [StatsContribution.Row] = []
            var products: [String: StoreStats.ProductFigures] = [:]
            for source in sources {
                rows += try await Self.rows(of: store, source.table, source.column, source.range, in: sql)
                for (key, figures) in try await Self.products(
                    of: store, source.products, source.column, source.range, in: sql)
                {
                    var merged = products[key] ?? figures
                    if products[key] != nil {
                        merged.quantity += figures.quantity
                        merged.revenue += figures.revenue
                        merged.name = max(merged.name, figures.name)
                        merged.productID = merged.productID ?? figures.productID
                    }
                    products[key] = merged
                }
            }
            return (rows, products, try await Self.names(of: rows, ShiftsRepository(database: database), in: sql))
        }
        let top = products.sorted { ($0.value.quantity, $1.key) > ($1.value.quantity, $0.key) }
            .prefix(StatsContribution.topProducts).map(\.value)
        return StatsContribution.assemble(
            store, days, timezone: timezone, rows: rows, topProducts: Array(top), names: names)
    }

    /// The rows of `table` whose `column` (a day or a month) is in `range`.
    private static func rows(
        of store: StoreID, _ table: String, _ column: String, _ range: ClosedRange<String>, in sql: any SQLDatabase
    ) async throws -> [StatsContribution.Row] {
        try await sql.raw(
            "SELECT " + SQLQueryString(column)
                + " AS period, staff_id, method, sales, takings, tips, refunds, refunds_count FROM "
                + SQLQueryString(table) + " WHERE store_id = \(bind: store.description) AND "
                + SQLQueryString(column) + " >= \(bind: range.lowerBound) AND " + SQLQueryString(column)
                + " <= \(bind: range.upperBound)"
        ).all().map { row in
            StatsContribution.Row(
                store: store, day: try row.decode(column: "period", as: String.self),
                staff: try Self.id(UserID.self, row, "staff_id"),
                method: try Self.method(row), sales: try row.decode(column: "sales", as: Int64.self),
                takings: try row.decode(column: "takings", as: Int64.self),
                tips: try row.decode(column: "tips", as: Int64.self),
                refunds: try row.decode(column: "refunds", as: Int64.self),
                refundsCount: try row.decode(column: "refunds_count", as: Int64.self))
        }
    }

    /// Each product's figures in `table` over the periods of `column` in `range`, by its key.
    private static func products(
        of store: StoreID, _ table: String, _ column: String, _ range: ClosedRange<String>, in sql: any SQLDatabase
    ) async throws -> [(String, StoreStats.ProductFigures)] {
        try await sql.raw(
            """
            SELECT product_key, MAX(product_id) AS product_id, MAX(name) AS name,
                CAST(SUM(quantity) AS BIGINT) AS quantity, CAST(SUM(revenue) AS BIGINT) AS revenue
            FROM 
            """ + SQLQueryString(table) + " WHERE store_id = \(bind: store.description) AND "
                + SQLQueryString(column) + " >= \(bind: range.lowerBound) AND " + SQLQueryString(column)
                + " <= \(bind: range.upperBound) GROUP BY product_key"
        ).all().map { row in
            (
                try row.decode(column: "product_key", as: String.self),
                StoreStats.ProductFigures(
                    productID: try row.decode(column: "product_id", as: String?.self).flatMap(ProductID.init),
                    name: try row.decode(column: "name", as: String.self),
                    quantity: try row.decode(column: "quantity", as: Int64.self),
                    revenue: try row.decode(column: "revenue", as: Int64.self))
            )
        }
    }

    /// The same statistics recomputed from the payments and refunds themselves, as the read
    /// model should hold them: what the tests check it against.
    func recompute(_ store: StoreID, _ days: StatsDays, timezone: String) async throws -> StoreStats {
        let payments = PaymentsRepository(database: database)
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
        let staff = ShiftsRepository(database: database)
        let names = try await database.read { try await Self.names(of: rows, staff, in: $0) }
        return StatsContribution.assemble(
            store, days, timezone: timezone, rows: rows.filter { days.contains($0.day) }, topProducts: Array(top),
            names: names)
    }

    /// The names of the staff members the rows count.
    private static func names(
        of rows: [StatsContribution.Row], _ shifts: ShiftsRepository, in sql: any SQLDatabase
    ) async throws -> [UserID: String] {
        var names: [UserID: String] = [:]
        for staff in Set(rows.map(\.staff)) { names[staff] = try await shifts.staffMember(staff, in: sql)?.name }
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
