import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Catalog

/// The catalog's upgrade to the store-wide ledger: the entries written before it are found by
/// their store and reason.
@Suite("The store's stock ledger at the upgrade")
struct StoreLedgerMigrationTests {
    @Test("entries written before are found by store and reason", arguments: TestDatabase.kinds)
    func filled(on kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "catalog", Array(CatalogService.migrations.prefix(5)))
            let (store, other) = (StoreID(), StoreID())
            let entries = [(store, StockReason.initial), (other, .initial), (store, .sale)].enumerated().map {
                index, entry in
                StockLedgerEntry(
                    id: UUID(), seq: Int64(index + 1), productID: ProductID(), storeID: entry.0, previousQuantity: 0,
                    newQuantity: 1, reason: entry.1, notes: nil, reference: nil, createdBy: UserID(),
                    createdAt: Date.currentMillisecond, clientCreatedAt: nil)
            }
            try await database.transaction { transaction in
                for entry in entries {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO stock_ledger (seq, id, product_id, created_at, doc)
                        VALUES (\(bind: entry.seq), \(bind: entry.id.lowercasedText), \(bind: entry.productID.description),
                            \(bind: entry.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(entry)))
                        """
                    ).run()
                }
            }
            try await database.migrate(scope: "catalog", CatalogService.migrations)
            let products = ProductsRepository(database: database)
            let all = try await products.ledger(StoreStockLedgerRequest(storeID: store), after: nil, limit: 10)
            #expect(all.data.map(\.seq) == [3, 1])
            let sales = try await products.ledger(
                StoreStockLedgerRequest(storeID: store, reasons: [.sale]), after: nil, limit: 10)
            #expect(sales.data.map(\.seq) == [3])
        }
    }
}
