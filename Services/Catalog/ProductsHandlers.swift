import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The catalog's Wire methods of products and their stock (a store's menu among them): each
/// decodes its request, asks `AccessPolicy`, validates, calls the repository and publishes the
/// product's events.
struct ProductsHandlers: Sendable {
    let database: Database

    var stores: StoresRepository { StoresRepository(database: database) }
    var book: StockBook { StockBook(database: database) }
    var products: ProductsRepository { book.products }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(CatalogAPI.menu) { ref, context in
            try await menu(of: ref.id, principal: context.principalOrVisitor(gateway: GatewayAPI.service))
        }
        router.register(CatalogAPI.createProduct) { request, context in
            try await createProduct(
                request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.getProduct) { ref, context in
            try await product(ref.id, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.checkoutProducts) { request, context in
            guard [OrdersAPI.service, PaymentsAPI.service].contains(context.callerService) else {
                throw OrderlyError(.permissionDenied, "only the orders and payments services price a sale")
            }
            guard AccessPolicy(try context.requirePrincipal()).canSeeMenu(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            let most = max(CheckoutDraft.maximumLines, Payment.maximumItems)
            guard request.ids.count <= most else {
                throw OrderlyError.invalidFields(["ids": "must name at most \(most) products"])
            }
            let products = self.products
            return try await database.read { sql in
                var found: [Product] = []
                for id in Set(request.ids) {
                    if let product = try await products.find(id, in: sql), product.storeID == request.storeID {
                        found.append(product)
                    }
                }
                return found
            }
        }
        router.register(CatalogAPI.updateProduct) { patch, context in
            try await updateProduct(
                patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.listProducts) { request, context in
            try await listProducts(request, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.productChanges) { request, context in
            try await productChanges(request, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.adjustStock) { request, context in
            try await adjustStock(
                request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.stockLedger) { request, context in
            try await stockLedger(request, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.storeStockLedger) { request, context in
            guard AccessPolicy(try context.requirePrincipal()).canSeeProducts(of: request.storeID) else {
                throw OrderlyError(.notFound, "no store \(request.storeID)")
            }
            if let from = request.from, let to = request.to, to <= from {
                throw OrderlyError.invalidFields(["to": "must be after from"])
            }
            return try await products.ledger(
                request, after: try request.page.cursor.map { try KeysetCursor(token: $0) },
                limit: try KeysetCursor.limit(request.page.limit))
        }
    }

    /// A store's menu; a visitor (nil) sees every store's, with its public profile.
    func menu(of id: StoreID, principal: Principal?) async throws -> Menu {
        guard principal.map({ AccessPolicy($0).canSeeMenu(of: id) }) ?? true,
            let store = try await database.read({ try await stores.find(id, in: $0) })
        else { throw OrderlyError(.notFound, "no store \(id)") }
        let active = try await products.activeProducts(
            of: id, limit: Menu.maximumItems, maximumBytes: Menu.maximumBytes)
        let presented = principal.map { AccessPolicy($0).present(store) } ?? AccessPolicy.presentToVisitor(store)
        return Menu(store: presented, products: active.products, truncated: active.more)
    }

    /// A new product of a store, with the store's currency, product VAT rate and low-stock
    /// threshold unless the draft says otherwise, and its opening stock as an `initial` ledger
    /// entry. A sku or barcode another product of the store has is refused (409 naming it).
    func createProduct(_ request: NewProduct, principal: Principal, idempotencyKey: String?) async throws -> Product {
        let policy = AccessPolicy(principal)
        let (products, book) = (self.products, self.book)
        guard policy.canSeeProducts(of: request.storeID),
            let store = try await database.read({ try await stores.find(request.storeID, in: $0) })
        else { throw OrderlyError(.notFound, "no store \(request.storeID)") }
        guard policy.canChangeProducts(of: store.id) else {
            throw Self.productChangeRefused
        }
        let now = Date.currentMillisecond
        let skeleton = Product(
            id: request.product.id ?? ProductID(), storeID: store.id, name: "", price: 0, currency: store.currency,
            vatRateBP: store.vatRates.product, trackStock: false, lowStockThreshold: Int64(store.lowStockDefault),
            createdAt: now, updatedAt: now)
        let created = try request.product.validated(creating: skeleton)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.products.create:\(store.id)",
            request: request
        ) { transaction in
            // One product of a store written at a time on PostgreSQL, so that codes checked are
            // still free when inserted (SQLite has one writer anyway).
            try await transaction.lock(.products(of: store.id))
            if try await products.find(created.id, in: transaction.sql) != nil {
                throw OrderlyError(
                    .conflict, "a product \(created.id) exists already", details: ["id": .string("is taken")])
            }
            try await Self.checkCodes(of: created, products, in: transaction)
            try await book.create(created, by: principal.userID, in: transaction)
            if created.active { try await StoreSearch.indexDishes(of: created.storeID, in: transaction) }
            return created
        }
    }

    func product(_ id: ProductID, principal: Principal) async throws -> Product {
        guard let product = try await database.read({ try await products.find(id, in: $0) }),
            AccessPolicy(principal).canSeeProducts(of: product.storeID)
        else { throw OrderlyError(.notFound, "no product \(id)") }
        return product
    }

    /// A page of a store's products matching the request's filters. A category no product of
    /// the store carries is named as a bad filter rather than answered with nothing.
    func listProducts(_ request: ProductListRequest, principal: Principal) async throws -> Page<Product> {
        guard AccessPolicy(principal).canSeeProducts(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let page = try await products.list(request, after: cursor, limit: limit)
        // Only an empty answer can come of a category no product carries; that one is named.
        if page.data.isEmpty, let category = request.category,
            try await !products.hasCategory(category, in: request.storeID)
        {
            throw OrderlyError.invalidFields(["category": "no product of the store is in category '\(category)'"])
        }
        return page
    }

    /// The store's products changed after the cursor, deactivated ones included.
    func productChanges(_ request: ProductChangesRequest, principal: Principal) async throws -> ProductChangesPage {
        guard AccessPolicy(principal).canSeeProducts(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        guard let since = Int64(digits: request.since) else {
            throw OrderlyError.invalidFields(["since": "must be 0 or a next_cursor this feed returned"])
        }
        let limit = try KeysetCursor.limit(request.limit, default: 200, maximum: 1000)
        let changed = try await products.changes(of: request.storeID, since: since, limit: limit)
        return ProductChangesPage(data: changed.products, nextCursor: String(changed.last), hasMore: changed.hasMore)
    }

    /// Changes a product's fields (not its stock), at the version the caller read when it names
    /// one.
    func updateProduct(_ patch: ProductPatch, principal: Principal, idempotencyKey: String?) async throws -> Product {
        let (products, book) = (self.products, self.book)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.products.update:\(patch.id)",
            request: patch
        ) { transaction in
            try await transaction.lock(.product(patch.id))
            var product = try await Self.productForChange(
                patch.id, principal, products, textsOnly: true, in: transaction)
            try await transaction.lock(.products(of: product.storeID))
            if let expected = patch.expectedVersion, expected != product.version {
                throw OrderlyError.versionConflict(current: product)
            }
            let before = product
            product = try patch.changes.validated(updating: before)
            try AccessPolicy(principal).checkChange(from: before, to: product)
            if before.trackStock, !product.trackStock, product.reserved > 0 {
                throw OrderlyError(
                    .conflict, "reservations hold \(product.reserved) of \(product.name)",
                    details: ["track_stock": .string("cannot be turned off while reservations hold stock")])
            }
            if before.allowNegativeStock, !product.allowNegativeStock, product.available < 0 {
                throw OrderlyError(
                    .conflict, "\(product.name) has \(product.available) available",
                    details: [
                        "allow_negative_stock": .string("cannot be turned off while less than nothing is available")
                    ])
            }
            try await Self.checkCodes(of: product, products, in: transaction)
            try await book.save(&product, in: transaction)
            if product.name != before.name || product.active != before.active {
                try await StoreSearch.indexDishes(of: product.storeID, in: transaction)
            }
            return product
        }
    }

    /// One ledger entry: the product's quantity moves by the adjustment (or to the new
    /// quantity), never below what reservations hold or below zero unless the product allows
    /// it, however many adjust it at once. A crossing of the low-stock threshold, or running
    /// out, publishes its event once.
    func adjustStock(_ request: ProductStockAdjustment, principal: Principal, idempotencyKey: String?) async throws
        -> StockLedgerEntry
    {
        let (change, reason, notes, reference) = try request.adjustment.validated()
        let (products, book) = (self.products, self.book)
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.stock.adjust:\(request.productID)",
            request: request
        ) { transaction in
            // A product is read and written by one transaction at a time.
            try await transaction.lock(.product(request.productID))
            var product = try await Self.productForChange(request.productID, principal, products, in: transaction)
            let before = product
            let adjustment: Int64 =
                switch change {
                case .adjustment(let units): units
                case .newQuantity(let quantity): quantity - product.quantity
                }
            product.quantity = try product.quantity(adjustedBy: adjustment)
            return try await book.move(
                &product, from: before, reason: reason, notes: notes, reference: reference, by: principal.userID,
                clientCreatedAt: request.adjustment.clientCreatedAt, in: transaction)
        }
    }

    /// A page of a product's ledger, oldest entry first.
    func stockLedger(_ request: StockLedgerRequest, principal: Principal) async throws -> Page<StockLedgerEntry> {
        let product = try await product(request.productID, principal: principal)
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        return try await products.ledger(of: product.id, after: cursor, limit: limit, counting: request.page.counting)
    }

    private static let productChangeRefused = OrderlyError(
        .permissionDenied, "only admins and the store's owner and managers change products")
    /// The product, for a caller who may change it (its texts alone, when `textsOnly`):
    /// `not_found` for one who may not see it, `permission_denied` for one who sees it but may
    /// not change it.
    private static func productForChange(
        _ id: ProductID, _ principal: Principal, _ products: ProductsRepository, textsOnly: Bool = false,
        in transaction: Transaction
    ) async throws -> Product {
        let policy = AccessPolicy(principal)
        guard let product = try await products.find(id, in: transaction.sql), policy.canSeeProducts(of: product.storeID)
        else { throw OrderlyError(.notFound, "no product \(id)") }
        let store = product.storeID
        guard textsOnly ? policy.canEditProductTexts(of: store) : policy.canChangeProducts(of: store) else {
            throw Self.productChangeRefused
        }
        return product
    }

    /// Refuses a sku or barcode another product of the store has (409 naming each).
    private static func checkCodes(
        of product: Product, _ products: ProductsRepository, in transaction: Transaction
    ) async throws {
        let taken = try await products.takenCodes(of: product, in: transaction.sql)
        guard !taken.isEmpty else { return }
        throw OrderlyError(
            .conflict, "\(taken.keys.sorted().joined(separator: " and ")) already used in the store",
            details: taken.mapValues { .string($0) })
    }
}
