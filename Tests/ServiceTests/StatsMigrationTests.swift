import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Payments

/// The payments service's later upgrades that fill what they add from what was kept before.
@Suite("Payments' read models at the upgrade")
struct StatsMigrationTests {
    @Test(
        "statistics kept per day before the months are summed into months; customers kept before are found by wallet",
        arguments: TestDatabase.kinds)
    func backfilled(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "payments", Array(PaymentsService.migrations.prefix(11)))
            let store = StoreID()
            let staff = UserID()
            let customer = {
                var customer = Customer(id: CustomerID(), storeID: store, createdAt: Date.currentMillisecond)
                customer.name = "Dana"
                customer.walletAddress = "rN7n7otQDd6FczFgLdSqtcsAUxDkw6fzRH"
                return customer
            }()
            try await database.transaction { transaction in
                for (day, takings) in [("2025-03-01", 1000), ("2025-03-31", 500), ("2025-04-02", 200)] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO stats_days (store_id, day, staff_id, method, sales, takings, tips, refunds, refunds_count)
                        VALUES (\(bind: store.description), \(bind: day), \(bind: staff.description), 'cash', 1,
                            \(bind: takings), 0, 0, 0)
                        """
                    ).run()
                    try await transaction.sql.raw(
                        """
                        INSERT INTO stats_products (store_id, day, product_key, product_id, name, quantity, revenue)
                        VALUES (\(bind: store.description), \(bind: day), 'line:Cola', NULL, 'Cola', 1, \(bind: takings))
                        """
                    ).run()
                }
                try await transaction.sql.raw(
                    """
                    INSERT INTO customers (id, store_id, user_id, search, search_phone, created_at, doc)
                    VALUES (\(bind: customer.id.description), \(bind: store.description), NULL, 'dana', '', 0,
                        \(bind: try StoredDocument.text(customer)))
                    """
                ).run()
            }
            try await database.migrate(scope: "payments", PaymentsService.migrations)

            let stats = StatsRepository(database: database)
            let days = try StatsDays(from: "2000-01-01", to: "2099-12-31")
            let read = try await stats.read(store, days, timezone: "UTC")
            #expect(read.totals.revenue == 1700 && read.totals.salesCount == 3)
            #expect(read.months.first { $0.month == "2025-03" }?.figures.revenue == 1500)
            #expect(read.months.first { $0.month == "2025-04" }?.figures.revenue == 200)
            #expect(read.topProducts.map(\.quantity) == [3])
            // A day's row written after, by this build or an earlier one (which writes the days
            // alone), reaches its month through the database's trigger: a new row and a change.
            try await database.transaction { transaction in
                for (day, takings) in [("2025-03-01", 300), ("2025-04-09", 50)] {
                    try await stats.add(
                        StatsContribution.Row(
                            store: store, day: day, staff: staff, method: .cash, sales: 1, takings: Int64(takings)),
                        in: transaction)
                    try await stats.add(
                        StatsContribution.ProductRow(
                            store: store, day: day, key: "line:Cola", productID: nil, name: "Cola", quantity: 2,
                            revenue: Int64(takings)),
                        in: transaction)
                }
            }
            let after = try await stats.read(store, days, timezone: "UTC")
            #expect(after.months.first { $0.month == "2025-03" }?.figures.revenue == 1800)
            #expect(after.months.first { $0.month == "2025-04" }?.figures.revenue == 250)
            #expect(after.topProducts.map(\.quantity) == [7] && after.totals.salesCount == 5)
            let found = try await CustomersRepository(database: database).list(
                CustomerListRequest(storeID: store, search: "rn7n7otqdd6"), after: nil, limit: 10)
            #expect(found.data.map(\.id) == [customer.id])
        }
    }
}
