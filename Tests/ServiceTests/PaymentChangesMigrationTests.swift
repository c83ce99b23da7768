import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Payments

/// The payments service's upgrade to the change feed: the payments written before it are in the
/// feed from 0, in the order they were made, each store's numbered on its own.
@Suite("The payments' change feed at the upgrade")
struct PaymentChangesMigrationTests {
    @Test(
        "payments written before the feed are numbered in the order they were made",
        arguments: TestDatabase.kinds)
    func numbered(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "payments", Array(PaymentsService.migrations.prefix(7)))
            let (store, other) = (StoreID(), StoreID())
            let made = Date.currentMillisecond
            let payments = [(store, 2), (other, 1), (store, 0)].map { store, minutes in
                Payment(
                    id: PaymentID(), storeID: store, orderID: nil, subtotal: 100, tip: 0,
                    currency: CurrencyCode("ILS")!,
                    method: .cash, status: .pending, staffID: UserID(),
                    createdAt: made.addingTimeInterval(Double(minutes) * 60))
            }
            try await database.transaction { transaction in
                for payment in payments {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO payments (id, store_id, status, created_at, doc)
                        VALUES (\(bind: payment.id.description), \(bind: payment.storeID.description), 'pending',
                            \(bind: payment.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(payment)))
                        """
                    ).run()
                }
            }
            try await database.migrate(scope: "payments", PaymentsService.migrations)
            let repository = PaymentsRepository(database: database)
            let changes = try await repository.changes(of: store, takenBy: nil, since: 0, limit: 10)
            #expect(changes.payments.map(\.id) == [payments[2].id, payments[0].id] && changes.last == 2)
            #expect(try await repository.changes(of: other, takenBy: nil, since: 0, limit: 10).last == 1)
            // What is written next follows on.
            var moved = payments[2]
            try moved.move(to: .cancelled, at: Date.currentMillisecond)
            let cancelled = moved
            try await database.transaction { try await repository.update(cancelled, in: $0) }
            let after = try await repository.changes(of: store, takenBy: nil, since: 2, limit: 10)
            #expect(after.payments.map(\.status) == [.cancelled] && after.last == 3)
        }
    }
}
