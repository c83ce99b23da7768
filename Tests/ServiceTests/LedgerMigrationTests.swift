import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Payments

/// The payments service's upgrade to the ledger: the payments completed and the refunds made
/// before it are posted, so that every store's balance is its payments less its refunds from the
/// first day.
@Suite("The ledger at the upgrade")
struct LedgerMigrationTests {
    @Test(
        "completed payments and their refunds made before the ledger are posted once, balanced",
        arguments: TestDatabase.kinds)
    func backfilled(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "payments", Array(PaymentsService.migrations.prefix(8)))
            let store = StoreID()
            let made = Date.currentMillisecond
            func payment(_ method: PaymentMethod, _ status: PaymentStatus, refunded: Int64 = 0) -> Payment {
                var payment = Payment(
                    id: PaymentID(), storeID: store, orderID: nil, subtotal: 1000, tip: 0, currency: .ils,
                    method: method, status: status, staffID: UserID(), createdAt: made)
                payment.refundedAmount = refunded
                payment.completedAt = status == .pending ? nil : made
                return payment
            }
            let card = payment(.card, .partiallyRefunded, refunded: 300)
            let cash = payment(.cash, .completed)
            let pending = payment(.card, .pending)
            let refund = Refund(
                id: RefundID(), paymentID: card.id, storeID: store, amount: 300, currency: .ils, reason: "r",
                restockLines: [], receiptID: ReceiptID(), staffID: UserID(), createdAt: made)
            try await database.transaction { transaction in
                for payment in [card, cash, pending] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO payments (id, store_id, status, created_at, doc)
                        VALUES (\(bind: payment.id.description), \(bind: store.description),
                            \(bind: payment.status.rawValue), \(bind: made.millisecondsSince1970),
                            \(bind: try StoredDocument.text(payment)))
                        """
                    ).run()
                }
                try await transaction.sql.raw(
                    """
                    INSERT INTO refunds (id, payment_id, store_id, created_at, doc)
                    VALUES (\(bind: refund.id.description), \(bind: card.id.description), \(bind: store.description),
                        \(bind: made.millisecondsSince1970), \(bind: try StoredDocument.text(refund)))
                    """
                ).run()
            }
            try await database.migrate(scope: "payments", PaymentsService.migrations)
            let ledger = LedgerRepository()
            let figures = try await database.read {
                try await ledger.balances(of: .store(store), heldSince: made.addingTimeInterval(60), in: $0)
            }
            // Both completed payments, less the refund; the cash is the store's till's.
            #expect(figures.map(\.earned) == [1000 + 1000 - 300] && figures.map(\.cashHeld) == [1000])
            let entries = try await database.read {
                try await ledger.entries(of: .store(store), after: nil, limit: 10, counting: false, in: $0)
            }
            #expect(entries.entries.count == 3 && entries.entries.allSatisfy(\.entry.isBalanced))
            let funds = try await database.read { try await ledger.sum(of: .platformFunds, in: $0) }
            #expect(funds == ["ILS": -1000 + 300])
        }
    }

    @Test(
        "a refund of cash collected on delivery booked to the courier is corrected: the debt is theirs again",
        arguments: TestDatabase.kinds)
    func courierRefundsCorrected(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "payments", Array(PaymentsService.migrations.prefix(9)))
            let (store, courier) = (StoreID(), UserID())
            let made = Date.currentMillisecond
            var collected = Payment(
                id: PaymentID(), storeID: store, orderID: OrderID(), subtotal: 6500, tip: 0, currency: .ils,
                method: .cash, status: .refunded, staffID: courier, createdAt: made)
            collected.collectedOnDelivery = true
            collected.refundedAmount = 6500
            let refund = Refund(
                id: RefundID(), paymentID: collected.id, storeID: store, amount: 6500, currency: .ils, reason: "r",
                restockLines: [], receiptID: ReceiptID(), staffID: UserID(), createdAt: made)
            // The refund as the release before booked it: back into the cash the courier holds.
            var wrong = Ledger.refund(refund, of: collected, commissionBP: 0, at: made)
            wrong.postings = wrong.postings.map {
                $0.account == LedgerAccount.storeCash(store).key ? LedgerPosting(.courierCash(courier), $0.amount) : $0
            }
            wrong.courierID = courier
            let ledger = LedgerRepository()
            try await database.transaction { [collected, wrong] transaction in
                try await ledger.post(Ledger.payment(collected, commissionBP: 0, at: made), in: transaction)
                try await ledger.post(wrong, in: transaction)
            }
            let before = try await database.read {
                try await ledger.balances(of: .courier(courier), heldSince: nil, in: $0)
            }
            #expect(before.map(\.cashHeld) == [0], "the debt the bug cleared")
            try await database.migrate(scope: "payments", PaymentsService.migrations)
            let courierFigures = try await database.read {
                try await ledger.balances(of: .courier(courier), heldSince: nil, in: $0)
            }
            #expect(courierFigures.map(\.cashHeld) == [6500], "the courier holds the cash they collected")
            let storeFigures = try await database.read {
                try await ledger.balances(of: .store(store), heldSince: nil, in: $0)
            }
            #expect(storeFigures.map(\.earned) == [0] && storeFigures.map(\.cashHeld) == [-6500])
            let entries = try await database.read {
                try await ledger.entries(of: .courier(courier), after: nil, limit: 10, counting: false, in: $0)
            }
            #expect(
                entries.entries.map(\.entry.kind).sorted { $0.rawValue < $1.rawValue } == [
                    .correction, .payment, .refund,
                ])
            #expect(entries.entries.allSatisfy { $0.entry.isBalanced })
        }
    }
}
