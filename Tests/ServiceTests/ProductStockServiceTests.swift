import Contracts
import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Catalog

/// The catalog's products and stock ledger at its handlers, on a real database of each kind.
@Suite("Catalog products and stock")
struct ProductStockServiceTests {
    static let admin = ServiceRulesTests.admin

    static func with(
        _ kind: Database.Kind, _ body: @Sendable (CatalogHandlers, Store, TestDatabase) async throws -> Void
    ) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "catalog", CatalogService.migrations)
            let handlers = CatalogHandlers(database: test.database)
            let store = try await handlers.createStore(
                StoreDraft(name: "Kiosk", vatRates: VATRates(all: 1700), lowStockDefault: 3), principal: admin,
                idempotencyKey: nil)
            try await body(handlers, store, test)
        }
    }

    /// The event types in the catalog's outbox, oldest first.
    static func events(in database: Database) async throws -> [String] {
        try await database.read { sql in
            try await sql.raw("SELECT type FROM orderly_outbox ORDER BY seq").all().map {
                try $0.decode(column: "type", as: String.self)
            }
        }
    }

    @Test(
        "products take the store's defaults; owners and managers write, staff read, others see nothing; codes unique",
        arguments: [Database.Kind.sqlite, .postgres])
    func products(kind: Database.Kind) async throws {
        try await Self.with(kind) { handlers, store, _ in
            let owner = Principal(userID: UserID(), role: .owner, storeID: store.id)
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let outsider = Principal(userID: UserID(), role: .manager, storeID: StoreID())
            let courier = Principal(userID: UserID(), role: .courier, storeID: nil)
            let draft = ProductDraft(name: "Cola", sku: "C-1", barcode: "729001", price: 900, trackStock: true)
            let cola = try await handlers.createProduct(
                NewProduct(storeID: store.id, product: draft), principal: owner, idempotencyKey: nil)
            #expect(cola.vatRateBP == 1700)
            #expect(cola.lowStockThreshold == 3)
            #expect(cola.currency == store.currency)
            #expect(cola.stockStatus == .outOfStock)
            #expect(try await handlers.product(cola.id, principal: staff) == cola)
            for stranger in [outsider, courier] {
                #expect(
                    await ServiceRulesTests.refusal { _ = try await handlers.product(cola.id, principal: stranger) }?
                        .code
                        == .notFound)
            }
            let byStaff = await ServiceRulesTests.refusal {
                _ = try await handlers.createProduct(
                    NewProduct(storeID: store.id, product: ProductDraft(name: "Tea", price: 500)), principal: staff,
                    idempotencyKey: nil)
            }
            #expect(byStaff?.code == .permissionDenied)
            let duplicate = await ServiceRulesTests.refusal {
                _ = try await handlers.createProduct(
                    NewProduct(
                        storeID: store.id,
                        product: ProductDraft(name: "Cola Zero", sku: "C-1", barcode: "729001", price: 900)),
                    principal: owner, idempotencyKey: nil)
            }
            #expect(duplicate?.code == .conflict)
            #expect(duplicate?.details?.keys.sorted() == ["barcode", "sku"])
            // Another store may use the same codes.
            let other = try await handlers.createStore(
                StoreDraft(name: "Other"), principal: Self.admin, idempotencyKey: nil)
            _ = try await handlers.createProduct(
                NewProduct(storeID: other.id, product: draft), principal: Self.admin, idempotencyKey: nil)
            // A patch at a stale version is refused; at the current one it applies.
            let stale = await ServiceRulesTests.refusal {
                _ = try await handlers.updateProduct(
                    ProductPatch(id: cola.id, expectedVersion: 0, changes: ProductDraft(price: 950)), principal: owner,
                    idempotencyKey: nil)
            }
            #expect(stale?.reason == "version_conflict")
            let repriced = try await handlers.updateProduct(
                ProductPatch(id: cola.id, expectedVersion: 1, changes: ProductDraft(price: 950)), principal: owner,
                idempotencyKey: nil)
            #expect(repriced.price == 950 && repriced.version == 2)
        }
    }

    @Test(
        "of concurrent sales of one unit against stock 10 exactly 10 succeed; the quantity is the ledger's sum",
        arguments: [Database.Kind.sqlite, .postgres])
    func concurrentAdjustments(kind: Database.Kind) async throws {
        try await Self.with(kind) { handlers, store, test in
            let manager = Principal(userID: UserID(), role: .manager, storeID: store.id)
            let product = try await handlers.createProduct(
                NewProduct(
                    storeID: store.id,
                    product: ProductDraft(name: "Cola", price: 900, trackStock: true, quantity: 10)),
                principal: manager, idempotencyKey: nil)
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<30 {
                    group.addTask {
                        do {
                            _ = try await handlers.adjustStock(
                                ProductStockAdjustment(
                                    productID: product.id, adjustment: StockAdjustment(adjustment: -1, reason: .sale)),
                                principal: manager, idempotencyKey: "sale-\(index)")
                            return "sold"
                        } catch let error as OrderlyError {
                            return error.reason ?? error.code.rawValue
                        }
                    }
                }
                return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(outcomes == ["sold": 10, "insufficient_stock": 20])
            let after = try await handlers.product(product.id, principal: manager)
            #expect(after.quantity == 0)
            let ledger = try await test.database.read { try await handlers.stores.ledger(of: product.id, in: $0) }
            #expect(ledger.count == 11)
            #expect(ledger.first?.reason == .initial)
            #expect(ledger.reduce(0) { $0 + $1.adjustment } == after.quantity)
            #expect(zip(ledger, ledger.dropFirst()).allSatisfy { $0.newQuantity == $1.previousQuantity })
            // Crossing 3 on the way down, then 0: one event each.
            let alerts = try await Self.events(in: test.database).filter { $0.hasPrefix("stock.") }
            #expect(alerts == ["stock.low", "stock.out"])
            // A restock makes the next crossing count again.
            _ = try await handlers.adjustStock(
                ProductStockAdjustment(
                    productID: product.id, adjustment: StockAdjustment(newQuantity: 5, reason: .restock)),
                principal: manager,
                idempotencyKey: nil)
            _ = try await handlers.adjustStock(
                ProductStockAdjustment(
                    productID: product.id,
                    adjustment: StockAdjustment(adjustment: -2, reason: .damage, notes: "dropped")),
                principal: manager, idempotencyKey: nil)
            #expect(
                try await Self.events(in: test.database).filter { $0.hasPrefix("stock.") } == [
                    "stock.low", "stock.out", "stock.low",
                ])
        }
    }

    @Test("a bad stock adjustment is refused, naming each field")
    func badAdjustments() async throws {
        try await Self.with(.sqlite) { handlers, store, _ in
            let owner = Principal(userID: UserID(), role: .owner, storeID: store.id)
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let product = try await handlers.createProduct(
                NewProduct(storeID: store.id, product: ProductDraft(name: "Cola", price: 900, trackStock: true)),
                principal: owner, idempotencyKey: nil)
            let cases: [(ProductStockAdjustment, [String])] = [
                (
                    ProductStockAdjustment(
                        productID: product.id, adjustment: StockAdjustment(adjustment: 0, reason: .restock)),
                    ["adjustment"]
                ),
                (
                    ProductStockAdjustment(productID: product.id, adjustment: StockAdjustment()),
                    ["adjustment", "reason"]
                ),
                (
                    ProductStockAdjustment(
                        productID: product.id,
                        adjustment: StockAdjustment(adjustment: 1, newQuantity: 1, reason: .restock)),
                    ["new_quantity"]
                ),
                (
                    ProductStockAdjustment(
                        productID: product.id, adjustment: StockAdjustment(newQuantity: -1, reason: .adjustment)),
                    ["new_quantity"]
                ),
                (
                    ProductStockAdjustment(
                        productID: product.id, adjustment: StockAdjustment(adjustment: 5, reason: .initial)), ["reason"]
                ),
            ]
            for (request, fields) in cases {
                let refusal = await ServiceRulesTests.refusal {
                    _ = try await handlers.adjustStock(request, principal: owner, idempotencyKey: nil)
                }
                #expect(refusal?.code == .invalidArgument)
                #expect(refusal?.details?.keys.sorted() == fields, "\(request)")
            }
            let byStaff = await ServiceRulesTests.refusal {
                _ = try await handlers.adjustStock(
                    ProductStockAdjustment(
                        productID: product.id, adjustment: StockAdjustment(adjustment: 1, reason: .restock)),
                    principal: staff,
                    idempotencyKey: nil)
            }
            #expect(byStaff?.code == .permissionDenied)
            let short = await ServiceRulesTests.refusal {
                _ = try await handlers.adjustStock(
                    ProductStockAdjustment(
                        productID: product.id, adjustment: StockAdjustment(adjustment: -1, reason: .sale)),
                    principal: owner,
                    idempotencyKey: nil)
            }
            #expect(short?.reason == "insufficient_stock")
            #expect(short?.details?["available"] == .int(0))
        }
    }
}
