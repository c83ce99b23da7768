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
        _ kind: Database.Kind, _ body: @Sendable (CatalogAtHandlers, Store, TestDatabase) async throws -> Void
    ) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "catalog", CatalogService.migrations)
            let handlers = CatalogAtHandlers(database: test.database)
            let store = try await handlers.stores.createStore(
                StoreDraft(name: "Kiosk", vatRates: VATRates(all: 1700), lowStockDefault: 3), principal: admin,
                idempotencyKey: nil)
            try await body(handlers, store, test)
        }
    }

    /// A product's whole ledger, read page by page as a client would, oldest entry first.
    static func ledger(of product: ProductID, _ handlers: CatalogAtHandlers, _ principal: Principal) async throws
        -> [StockLedgerEntry]
    {
        var entries: [StockLedgerEntry] = []
        var cursor: String?
        repeat {
            let page = try await handlers.products.stockLedger(
                StockLedgerRequest(productID: product, page: PageRequest(limit: 4, cursor: cursor)),
                principal: principal)
            entries += page.data
            cursor = page.nextCursor
        } while cursor != nil
        return entries
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
        arguments: TestDatabase.kinds)
    func products(kind: Database.Kind) async throws {
        try await Self.with(kind) { handlers, store, _ in
            let owner = Principal(userID: UserID(), role: .owner, storeID: store.id)
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let outsider = Principal(userID: UserID(), role: .manager, storeID: StoreID())
            let courier = Principal(userID: UserID(), role: .courier, storeID: nil)
            let draft = ProductDraft(name: "Cola", sku: "C-1", barcode: "729001", price: 900, trackStock: true)
            let cola = try await handlers.products.createProduct(
                NewProduct(storeID: store.id, product: draft), principal: owner, idempotencyKey: nil)
            #expect(cola.vatRateBP == 1700)
            #expect(cola.lowStockThreshold == 3)
            #expect(cola.currency == store.currency)
            #expect(cola.stockStatus == .outOfStock)
            #expect(try await handlers.products.product(cola.id, principal: staff) == cola)
            for stranger in [outsider, courier] {
                #expect(
                    await ServiceRulesTests.refusal {
                        _ = try await handlers.products.product(cola.id, principal: stranger)
                    }?
                    .code
                        == .notFound)
            }
            let byStaff = await ServiceRulesTests.refusal {
                _ = try await handlers.products.createProduct(
                    NewProduct(storeID: store.id, product: ProductDraft(name: "Tea", price: 500)), principal: staff,
                    idempotencyKey: nil)
            }
            #expect(byStaff?.code == .permissionDenied)
            let duplicate = await ServiceRulesTests.refusal {
                _ = try await handlers.products.createProduct(
                    NewProduct(
                        storeID: store.id,
                        product: ProductDraft(name: "Cola Zero", sku: "C-1", barcode: "729001", price: 900)),
                    principal: owner, idempotencyKey: nil)
            }
            #expect(duplicate?.code == .conflict)
            #expect(duplicate?.details?.keys.sorted() == ["barcode", "sku"])
            // Another store may use the same codes.
            let other = try await handlers.stores.createStore(
                StoreDraft(name: "Other"), principal: Self.admin, idempotencyKey: nil)
            _ = try await handlers.products.createProduct(
                NewProduct(storeID: other.id, product: draft), principal: Self.admin, idempotencyKey: nil)
            // A patch at a stale version is refused; at the current one it applies.
            let stale = await ServiceRulesTests.refusal {
                _ = try await handlers.products.updateProduct(
                    ProductPatch(id: cola.id, expectedVersion: 0, changes: ProductDraft(price: 950)), principal: owner,
                    idempotencyKey: nil)
            }
            #expect(stale?.reason == .versionConflict)
            let repriced = try await handlers.products.updateProduct(
                ProductPatch(id: cola.id, expectedVersion: 1, changes: ProductDraft(price: 950)), principal: owner,
                idempotencyKey: nil)
            #expect(repriced.price == 950 && repriced.version == 2)
        }
    }

    @Test(
        "of concurrent sales of one unit against stock 10 exactly 10 succeed; the quantity is the ledger's sum",
        arguments: TestDatabase.kinds)
    func concurrentAdjustments(kind: Database.Kind) async throws {
        try await Self.with(kind) { handlers, store, test in
            let manager = Principal(userID: UserID(), role: .manager, storeID: store.id)
            let product = try await handlers.products.createProduct(
                NewProduct(
                    storeID: store.id,
                    product: ProductDraft(name: "Cola", price: 900, trackStock: true, quantity: 10)),
                principal: manager, idempotencyKey: nil)
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<30 {
                    group.addTask {
                        do {
                            _ = try await handlers.products.adjustStock(
                                ProductStockAdjustment(
                                    productID: product.id, adjustment: StockAdjustment(adjustment: -1, reason: .sale)),
                                principal: manager, idempotencyKey: "sale-\(index)")
                            return "sold"
                        } catch let error as OrderlyError {
                            return error.reason?.rawValue ?? error.code.rawValue
                        }
                    }
                }
                return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(outcomes == ["sold": 10, "insufficient_stock": 20])
            let after = try await handlers.products.product(product.id, principal: manager)
            #expect(after.quantity == 0)
            let ledger = try await Self.ledger(of: product.id, handlers, manager)
            #expect(ledger.count == 11)
            #expect(ledger.first?.reason == .initial)
            #expect(ledger.reduce(0) { $0 + $1.adjustment } == after.quantity)
            #expect(zip(ledger, ledger.dropFirst()).allSatisfy { $0.newQuantity == $1.previousQuantity })
            // Crossing 3 on the way down, then 0: one event each.
            let alerts = try await Self.events(in: test.database).filter { $0.hasPrefix("stock.") }
            #expect(alerts == ["stock.low", "stock.out"])
            // A restock makes the next crossing count again.
            _ = try await handlers.products.adjustStock(
                ProductStockAdjustment(
                    productID: product.id, adjustment: StockAdjustment(newQuantity: 5, reason: .restock)),
                principal: manager,
                idempotencyKey: nil)
            _ = try await handlers.products.adjustStock(
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
            let product = try await handlers.products.createProduct(
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
                    _ = try await handlers.products.adjustStock(request, principal: owner, idempotencyKey: nil)
                }
                #expect(refusal?.code == .invalidArgument)
                #expect(refusal?.details?.keys.sorted() == fields, "\(request)")
            }
            let byStaff = await ServiceRulesTests.refusal {
                _ = try await handlers.products.adjustStock(
                    ProductStockAdjustment(
                        productID: product.id, adjustment: StockAdjustment(adjustment: 1, reason: .restock)),
                    principal: staff,
                    idempotencyKey: nil)
            }
            #expect(byStaff?.code == .permissionDenied)
            let short = await ServiceRulesTests.refusal {
                _ = try await handlers.products.adjustStock(
                    ProductStockAdjustment(
                        productID: product.id, adjustment: StockAdjustment(adjustment: -1, reason: .sale)),
                    principal: owner,
                    idempotencyKey: nil)
            }
            #expect(short?.reason == .insufficientStock)
            #expect(short?.details?["available"] == .int(0))
        }
    }

    @Test(
        "lists filter by category, search, barcode, active and stock status, page by keyset; an unknown category is named",
        arguments: TestDatabase.kinds)
    func lists(kind: Database.Kind) async throws {
        try await Self.with(kind) { handlers, store, _ in
            let owner = Principal(userID: UserID(), role: .owner, storeID: store.id)
            let staff = Principal(userID: UserID(), role: .staff, storeID: store.id)
            let courier = Principal(userID: UserID(), role: .courier, storeID: nil)
            let drafts = [
                ProductDraft(
                    name: "Cola", sku: "DR-1", barcode: "111", category: "Drinks", price: 900,
                    trackStock: true, quantity: 20),
                ProductDraft(
                    name: "Lemonade", sku: "DR-2", category: "Drinks", price: 800, trackStock: true,
                    quantity: 2),
                ProductDraft(name: "Bagel 50%_off", category: "Bakery", price: 600, trackStock: true),
                ProductDraft(name: "Gift wrap", price: 200),
            ]
            var products: [Product] = []
            for draft in drafts {
                products.append(
                    try await handlers.products.createProduct(
                        NewProduct(storeID: store.id, product: draft), principal: owner, idempotencyKey: nil))
            }
            func names(_ request: ProductListRequest, as principal: Principal? = nil) async throws -> [String] {
                try await handlers.products.listProducts(request, principal: principal ?? staff).data.map(\.name)
            }
            let all = ProductListRequest(storeID: store.id)
            #expect(try await names(all) == ["Cola", "Lemonade", "Bagel 50%_off", "Gift wrap"])
            #expect(try await names(ProductListRequest(storeID: store.id, category: "Drinks")) == ["Cola", "Lemonade"])
            #expect(try await names(ProductListRequest(storeID: store.id, search: "  LEMON ")) == ["Lemonade"])
            #expect(try await names(ProductListRequest(storeID: store.id, search: "dr-")) == ["Cola", "Lemonade"])
            // `%` and `_` are matched as themselves.
            #expect(try await names(ProductListRequest(storeID: store.id, search: "0%_")) == ["Bagel 50%_off"])
            #expect(try await names(ProductListRequest(storeID: store.id, search: "%")) == ["Bagel 50%_off"])
            #expect(try await names(ProductListRequest(storeID: store.id, barcode: "111")) == ["Cola"])
            #expect(
                try await names(ProductListRequest(storeID: store.id, stockStatuses: [.low, .outOfStock]))
                    == ["Lemonade", "Bagel 50%_off"])
            _ = try await handlers.products.updateProduct(
                ProductPatch(id: products[3].id, expectedVersion: nil, changes: ProductDraft(active: false)),
                principal: owner, idempotencyKey: nil)
            #expect(try await names(ProductListRequest(storeID: store.id, active: false)) == ["Gift wrap"])
            // Pages of one follow each other without gaps or repeats.
            var paged: [String] = []
            var cursor: String?
            repeat {
                let page = try await handlers.products.listProducts(
                    ProductListRequest(storeID: store.id, page: PageRequest(limit: 1, cursor: cursor)),
                    principal: staff)
                paged += page.data.map(\.name)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(paged == (try await names(all)))
            let unknown = await ServiceRulesTests.refusal {
                _ = try await handlers.products.listProducts(
                    ProductListRequest(storeID: store.id, category: "Toys"), principal: staff)
            }
            #expect(unknown?.code == .invalidArgument)
            #expect(unknown?.details?.keys.sorted() == ["category"])
            let byCourier = await ServiceRulesTests.refusal { _ = try await names(all, as: courier) }
            #expect(byCourier?.code == .notFound)
        }
    }

    @Test(
        "the change feed brings every change once, deactivations included, from any cursor it returned",
        .enabled(if: TestDatabase.hasPostgres, TestDatabase.noPostgres))
    func changeFeed() async throws {
        try await Self.with(.postgres) { handlers, store, _ in
            let owner = Principal(userID: UserID(), role: .owner, storeID: store.id)
            let cola = try await handlers.products.createProduct(
                NewProduct(storeID: store.id, product: ProductDraft(name: "Cola", price: 900)), principal: owner,
                idempotencyKey: nil)
            let tea = try await handlers.products.createProduct(
                NewProduct(storeID: store.id, product: ProductDraft(name: "Tea", price: 500)), principal: owner,
                idempotencyKey: nil)
            let first = try await handlers.products.productChanges(
                ProductChangesRequest(storeID: store.id, since: "0", limit: 1), principal: owner)
            #expect(first.data.map(\.id) == [cola.id] && first.hasMore)
            let rest = try await handlers.products.productChanges(
                ProductChangesRequest(storeID: store.id, since: first.nextCursor), principal: owner)
            #expect(rest.data.map(\.id) == [tea.id] && !rest.hasMore)
            _ = try await handlers.products.updateProduct(
                ProductPatch(id: cola.id, expectedVersion: nil, changes: ProductDraft(active: false)),
                principal: owner, idempotencyKey: nil)
            let after = try await handlers.products.productChanges(
                ProductChangesRequest(storeID: store.id, since: rest.nextCursor), principal: owner)
            #expect(after.data.map(\.id) == [cola.id] && after.data.first?.active == false)
            let quiet = try await handlers.products.productChanges(
                ProductChangesRequest(storeID: store.id, since: after.nextCursor), principal: owner)
            #expect(quiet.data.isEmpty && quiet.nextCursor == after.nextCursor)
            let bad = await ServiceRulesTests.refusal {
                _ = try await handlers.products.productChanges(
                    ProductChangesRequest(storeID: store.id, since: "yesterday"), principal: owner)
            }
            #expect(bad?.details?.keys.sorted() == ["since"])
        }
    }

    @Test(
        "products stored before the list columns existed get them from their documents",
        arguments: TestDatabase.kinds)
    func listColumnsMigration(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "catalog", Array(CatalogService.migrations.prefix(2)))
            let store = StoreID()
            var product = Product(
                id: ProductID(), storeID: store, name: "Old Cola", price: 900, currency: .ils, vatRateBP: 1700,
                trackStock: true, lowStockThreshold: 3, createdAt: Date.currentMillisecond,
                updatedAt: Date.currentMillisecond)
            product.category = "Drinks"
            product.quantity = 2
            let document = try StoredDocument.text(product)
            let id = product.id
            try await test.database.transaction { transaction in
                try await transaction.sql.raw(
                    """
                    INSERT INTO products (id, store_id, version, created_at, updated_at, doc)
                    VALUES (\(bind: id.description), \(bind: store.description), 1, 0, 0, \(bind: document))
                    """
                ).run()
            }
            try await test.database.migrate(scope: "catalog", CatalogService.migrations)
            let handlers = CatalogAtHandlers(database: test.database)
            let list = try await handlers.products.listProducts(
                ProductListRequest(storeID: store, category: "Drinks", search: "old", stockStatuses: [.low]),
                principal: Self.admin)
            #expect(list.data.map(\.id) == [product.id])
            let feed = try await handlers.products.productChanges(
                ProductChangesRequest(storeID: store, since: "0"), principal: Self.admin)
            #expect(feed.data.map(\.id) == [product.id])
        }
    }
}

/// The catalog's handlers of each resource over one database, as its service assembles them.
struct CatalogAtHandlers: Sendable {
    let stores: StoresHandlers
    let products: ProductsHandlers
    let reservations: ReservationsHandlers

    init(database: Database) {
        stores = StoresHandlers(database: database)
        products = ProductsHandlers(database: database)
        reservations = ReservationsHandlers(database: database)
    }
}
