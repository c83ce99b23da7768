import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Notifications

/// The notifications service's upgrade to broadcasts: the couriers on duty then keep hearing of
/// new deliveries without coming on duty again.
@Suite("Duty spells at the upgrade")
struct DutySpellsMigrationTests {
    @Test(
        "couriers on duty when the broadcasts arrive start a spell then and hear of what follows; others do not",
        arguments: TestDatabase.kinds)
    func spellsAtUpgrade(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "notifications", Array(NotificationsService.migrations.prefix(7)))
            let (onDuty, offDuty, staff) = (UserID(), UserID(), UserID())
            try await database.transaction { transaction in
                for (user, role, duty) in [(onDuty, "courier", 1), (offDuty, "courier", 0), (staff, "staff", 1)] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO recipients (user_id, role, store_id, active, on_duty, version)
                        VALUES (\(bind: user.description), \(bind: role), NULL, 1, \(bind: duty), 1)
                        """
                    ).run()
                }
                _ = try await transaction.advanceSequence("notifications", by: 41)
            }
            try await database.migrate(scope: "notifications", NotificationsService.migrations)
            let repository = NotificationsRepository(database: database)
            let message = Message(
                telling: Telling("order.new_delivery.title", "order.new_delivery.body", ["7", "Herzl 12", "2"]),
                type: "order.created", data: [:], to: .couriersOnDuty)
            let stored = try await database.transaction { transaction in
                try await repository.insert([message], at: Date(), in: transaction)
            }
            #expect(stored.broadcasts.map(\.seq) == [42])
            let told = try await repository.list(of: onDuty, courier: true, after: 0, limit: 10)
            #expect(told.notifications.map(\.seq) == [42] && told.unread == 1)
            #expect(told.notifications.first?.title == "New delivery #7")
            #expect(try await repository.list(of: offDuty, courier: true, after: 0, limit: 10).notifications.isEmpty)
        }
    }
}
