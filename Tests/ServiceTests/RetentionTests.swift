import Domain
import Foundation
import Logging
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Notifications
@testable import Orders
@testable import Payments

/// What each service keeps for a time only: housekeeping deletes it once older than its
/// retention, and keeps what is newer or still in use.
@Suite("Retention")
struct RetentionTests {
    static let day: Int64 = 86_400_000
    static let logger = Logger(label: "orderly.tests.retention")

    static func count(_ table: String, in database: Database, where condition: String = "1 = 1") async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table) WHERE \(unsafeRaw: condition)").first()?
                .decode(column: "n", as: Int.self)
        } ?? -1
    }

    @Test(
        "notifications, what couriers were told, stores' activity and finished webhook deliveries go after their retention; deliveries still tried stay"
    )
    func notifications() async throws {
        try await TestDatabase.with(.sqlite) { test in
            let database = test.database
            try await database.migrate(scope: "notifications", NotificationsService.migrations)
            let now = Date.nowMilliseconds
            try await database.transaction { transaction in
                for (seq, age) in [(1, 91), (2, 89), (3, 1)] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO notifications (seq, id, user_id, created_at, doc)
                        VALUES (\(bind: seq), \(bind: UUID().uuidString), 'u', \(bind: now - Int64(age) * Self.day), '{}')
                        """
                    ).run()
                }
                // What the couriers were told: the old broadcast goes, and with it the spell,
                // mark and read that reach nothing else; the open spell and what reaches the
                // newer one stay.
                for (seq, age) in [(10, 91), (11, 1)] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO broadcasts (seq, id, created_at, doc)
                        VALUES (\(bind: seq), \(bind: UUID().uuidString), \(bind: now - Int64(age) * Self.day), '{}')
                        """
                    ).run()
                }
                for statement: SQLQueryString in [
                    "INSERT INTO duty_spells (user_id, from_seq, to_seq) VALUES ('c', 5, 10), ('c', 10, 11), ('d', 9, \(bind: Int64.max))",
                    "INSERT INTO broadcast_marks (user_id, up_to_seq, read_at) VALUES ('c', 10, 1), ('d', 11, 1)",
                    "INSERT INTO broadcast_reads (user_id, seq, read_at) VALUES ('c', 10, 1), ('c', 11, 1)",
                ] {
                    try await transaction.sql.raw(statement).run()
                }
                for (seq, age) in [(1, 91), (2, 89)] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO activity (store_id, seq, at, doc)
                        VALUES ('s', \(bind: seq), \(bind: now - Int64(age) * Self.day), '{}')
                        """
                    ).run()
                }
                for (status, age) in [("delivered", 31), ("failed", 31), ("pending", 31), ("delivered", 29)] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO webhook_deliveries (id, webhook_id, status, window_start, created_at, body, doc)
                        VALUES (\(bind: UUID().uuidString), 'w', \(bind: status), 0, \(bind: now - Int64(age) * Self.day),
                            '{}', '{}')
                        """
                    ).run()
                }
            }
            let removed = await Housekeeping(jobs: RetentionSettings().jobs(database), logger: Self.logger).runOnce()
            #expect(
                removed == [
                    "notifications": 1, "webhook deliveries": 2, "broadcasts to couriers": 1, "stores' activity": 1,
                ])
            #expect(try await Self.count("activity", in: database, where: "seq = 2") == 1)
            #expect(try await Self.count("notifications", in: database) == 2)
            #expect(try await Self.count("broadcasts", in: database, where: "seq = 11") == 1)
            #expect(try await Self.count("broadcasts", in: database) == 1)
            #expect(try await Self.count("duty_spells", in: database, where: "to_seq >= 11") == 2)
            #expect(try await Self.count("duty_spells", in: database) == 2)
            #expect(try await Self.count("broadcast_marks", in: database) == 1)
            #expect(try await Self.count("broadcast_reads", in: database, where: "seq = 11") == 1)
            #expect(try await Self.count("broadcast_reads", in: database) == 1)
            #expect(try await Self.count("webhook_deliveries", in: database, where: "status = 'pending'") == 1)
            #expect(try await Self.count("webhook_deliveries", in: database) == 2)
        }
    }

    @Test("the providers' report ids go after their retention, the newer stay")
    func providerReports() async throws {
        try await TestDatabase.with(.sqlite) { test in
            let database = test.database
            try await database.migrate(scope: "payments", PaymentsService.migrations)
            let now = Date.nowMilliseconds
            try await database.transaction { transaction in
                for age in [91, 89] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO provider_events (provider, id, payment_id, received_at)
                        VALUES ('acme-pay', \(bind: UUID().uuidString), 'p', \(bind: now - Int64(age) * Self.day))
                        """
                    ).run()
                }
            }
            let jobs = PaymentsService.housekeeping(database, settings: PaymentsSettings())
            #expect(await Housekeeping(jobs: jobs, logger: Self.logger).runOnce() == ["provider reports": 1])
            #expect(try await Self.count("provider_events", in: database) == 1)
        }
    }

    @Test("a courier's releases are forgotten after the day they count for")
    func releases() async throws {
        try await TestDatabase.with(.sqlite) { test in
            let database = test.database
            try await database.migrate(scope: "orders", OrdersService.migrations)
            let repository = OrdersRepository(database: database)
            let courier = UserID()
            try await database.transaction { transaction in
                for hours in [25.0, 23.0] {
                    try await repository.recordRelease(
                        by: courier, at: Date().addingTimeInterval(-hours * 3600), in: transaction)
                }
            }
            let since = Date().addingTimeInterval(-OrderPool.releaseWindow)
            #expect(try await database.read { try await repository.releases(by: courier, since: since, in: $0) } == 1)
            #expect(try await repository.removeReleases(before: since) == 1)
            #expect(try await Self.count("order_releases", in: database) == 1)
        }
    }
}
