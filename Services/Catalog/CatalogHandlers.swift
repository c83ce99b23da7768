import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The catalog's Wire methods: each decodes its request, asks `AccessPolicy`, validates, calls
/// the repository and publishes the store's events.
struct CatalogHandlers: Sendable {
    let database: Database
    let stores: CatalogRepository
    let idempotency: IdempotencyStore

    init(database: Database) {
        self.database = database
        self.stores = CatalogRepository(database: database)
        self.idempotency = IdempotencyStore(database: database)
    }

    func register(in router: inout WireRouter) {
        router.register(CatalogAPI.createStore) { draft, context in
            try await createStore(draft, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.getStore) { ref, context in
            try await store(ref.id, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.listStores) { request, context in
            try await listStores(request, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.updateStore) { patch, context in
            try await updateStore(patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.createProduct) { request, context in
            try await createProduct(
                request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.getProduct) { ref, context in
            try await product(ref.id, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.updateProduct) { patch, context in
            try await updateProduct(
                patch, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.adjustStock) { request, context in
            try await adjustStock(
                request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
    }

    func createStore(_ draft: StoreDraft, principal: Principal, idempotencyKey: String?) async throws -> Store {
        guard AccessPolicy(principal).canCreateStores else {
            throw OrderlyError(.permissionDenied, "only admins create stores")
        }
        let now = Date.currentMillisecond
        var store = Store(
            id: StoreID(), name: "", tier: .free, address: nil, phone: nil, currency: .ils,
            timezone: "Asia/Jerusalem", vatRates: .standard, deliveryPricing: .standard, lowStockDefault: 5,
            version: 1, createdAt: now, updatedAt: now)
        try Self.apply(draft, to: &store, creating: true)
        let created = store
        let stores = self.stores
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.stores.create", request: draft
        ) {
            transaction in
            try await stores.insert(created, in: transaction)
            transaction.publish(try CatalogEvents.storeCreated(created))
            return created
        }
    }

    func store(_ id: StoreID, principal: Principal) async throws -> Store {
        guard AccessPolicy(principal).canSee(store: id),
            let store = try await database.read({ try await stores.find(id, in: $0) })
        else { throw OrderlyError(.notFound, "no store \(id)") }
        return store
    }

    func listStores(_ request: PageRequest, principal: Principal) async throws -> Page<Store> {
        let limit = try KeysetCursor.limit(request.limit)
        let cursor = try request.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        return try await stores.list(AccessPolicy(principal).visibleStores, after: cursor, limit: limit)
    }

    func updateStore(_ patch: StorePatch, principal: Principal, idempotencyKey: String?) async throws -> Store {
        let policy = AccessPolicy(principal)
        guard policy.canSee(store: patch.id) else { throw OrderlyError(.notFound, "no store \(patch.id)") }
        guard policy.canChange(store: patch.id) else {
            throw OrderlyError(.permissionDenied, "only admins and the store's owner and managers change a store")
        }
        let stores = self.stores
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.stores.update:\(patch.id)", request: patch
        ) {
            transaction in
            guard var store = try await stores.find(patch.id, in: transaction.sql) else {
                throw OrderlyError(.notFound, "no store \(patch.id)")
            }
            if let expected = patch.expectedVersion, expected != store.version {
                throw OrderlyError.versionConflict(current: store)
            }
            let previousVersion = store.version
            try Self.apply(patch.changes, to: &store, creating: false)
            store.version += 1
            store.updatedAt = Date.currentMillisecond
            guard try await stores.update(store, previousVersion: previousVersion, in: transaction) else {
                throw OrderlyError(.conflict, "the store changed meanwhile; retry", reason: "version_conflict")
            }
            transaction.publish(try CatalogEvents.storeUpdated(store))
            return store
        }
    }

    /// Applies the fields a draft carries, validating each; on creation `name` is required.
    static func apply(_ draft: StoreDraft, to store: inout Store, creating: Bool) throws(OrderlyError) {
        var problems = FieldProblems()
        if creating || draft.name != nil { store.name = problems.text(draft.name, "name") }
        if let tier = draft.tier { store.tier = tier }
        if let address = draft.address { store.address = problems.optionalText(address, "address", maximumLength: 500) }
        if let phone = draft.phone { store.phone = problems.optionalText(phone, "phone", maximumLength: 32) }
        if let currency = draft.currency { store.currency = currency }
        // A blank time zone, like any blank optional text, counts as absent.
        if let timezone = draft.timezone, !timezone.trimmingWhitespace().isEmpty {
            if Store.isKnownTimeZone(timezone) {
                store.timezone = timezone
            } else {
                problems.add("timezone", "must be an IANA time zone such as Asia/Jerusalem")
            }
        }
        if let rates = draft.vatRates {
            rates.validate(into: &problems, field: "vat_rates")
            store.vatRates = rates
        }
        if let pricing = draft.deliveryPricing {
            pricing.validate(into: &problems, field: "delivery_pricing")
            store.deliveryPricing = pricing
        }
        if let threshold = problems.integer(
            draft.lowStockDefault, "low_stock_default", in: 0...1_000_000, required: false)
        {
            store.lowStockDefault = threshold
        }
        try problems.check()
    }

    // MARK: Products and stock

    /// A new product of a store, with the store's currency, product VAT rate and low-stock
    /// threshold unless the draft says otherwise, and its opening stock as an `initial` ledger
    /// entry. A sku or barcode another product of the store has is refused (409 naming it).
    func createProduct(_ request: NewProduct, principal: Principal, idempotencyKey: String?) async throws -> Product {
        let policy = AccessPolicy(principal)
        let stores = self.stores
        guard policy.canSeeProducts(of: request.storeID),
            let store = try await database.read({ try await stores.find(request.storeID, in: $0) })
        else { throw OrderlyError(.notFound, "no store \(request.storeID)") }
        guard policy.canChangeProducts(of: store.id) else {
            throw Self.productChangeRefused
        }
        let now = Date.currentMillisecond
        var product = Product(
            id: request.product.id ?? ProductID(), storeID: store.id, name: "", price: 0, currency: store.currency,
            vatRateBP: store.vatRates.product, trackStock: false, lowStockThreshold: Int64(store.lowStockDefault),
            createdAt: now, updatedAt: now)
        try request.product.apply(to: &product, creating: true)
        let created = product
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.products.create:\(store.id)",
            request: request
        ) { transaction in
            // One product of a store written at a time on PostgreSQL, so that codes checked are
            // still free when inserted (SQLite has one writer anyway).
            try await transaction.lock("catalog.products:\(store.id)")
            if try await stores.find(created.id, in: transaction.sql) != nil {
                throw OrderlyError(
                    .conflict, "a product \(created.id) exists already", details: ["id": .string("is taken")])
            }
            try await Self.checkCodes(of: created, stores, in: transaction)
            try await stores.insert(created, in: transaction)
            if created.quantity != 0 {
                try await stores.insert(
                    StockLedgerEntry(
                        id: UUID.random(), seq: try await transaction.nextSequence("stock_ledger"),
                        productID: created.id, storeID: created.storeID, previousQuantity: 0,
                        newQuantity: created.quantity, reason: .initial, notes: nil, reference: nil,
                        createdBy: principal.userID, createdAt: now, clientCreatedAt: nil),
                    in: transaction)
            }
            transaction.publish(try CatalogEvents.product(CatalogAPI.Events.productCreated, created))
            return created
        }
    }

    func product(_ id: ProductID, principal: Principal) async throws -> Product {
        guard let product = try await database.read({ try await stores.find(id, in: $0) }),
            AccessPolicy(principal).canSeeProducts(of: product.storeID)
        else { throw OrderlyError(.notFound, "no product \(id)") }
        return product
    }

    /// Changes a product's fields (not its stock), at the version the caller read when it names one.
    func updateProduct(_ patch: ProductPatch, principal: Principal, idempotencyKey: String?) async throws -> Product {
        let stores = self.stores
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.products.update:\(patch.id)",
            request: patch
        ) { transaction in
            try await transaction.lock("catalog.product:\(patch.id)")
            var product = try await Self.productForChange(patch.id, principal, stores, in: transaction)
            try await transaction.lock("catalog.products:\(product.storeID)")
            if let expected = patch.expectedVersion, expected != product.version {
                throw OrderlyError.versionConflict(current: product)
            }
            try patch.changes.apply(to: &product, creating: false)
            try await Self.checkCodes(of: product, stores, in: transaction)
            try await Self.save(&product, stores, in: transaction)
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
        let stores = self.stores
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.stock.adjust:\(request.productID)",
            request: request
        ) { transaction in
            // A product is read and written by one transaction at a time.
            try await transaction.lock("catalog.product:\(request.productID)")
            var product = try await Self.productForChange(request.productID, principal, stores, in: transaction)
            let before = product
            let adjustment: Int64 =
                switch change {
                case .adjustment(let units): units
                case .newQuantity(let quantity): quantity - product.quantity
                }
            product.quantity = try product.quantity(adjustedBy: adjustment)
            try await Self.save(&product, stores, in: transaction)
            let entry = StockLedgerEntry(
                id: UUID.random(), seq: try await transaction.nextSequence("stock_ledger"), productID: product.id,
                storeID: product.storeID, previousQuantity: before.quantity, newQuantity: product.quantity,
                reason: reason, notes: notes, reference: reference, createdBy: principal.userID,
                createdAt: product.updatedAt, clientCreatedAt: request.adjustment.clientCreatedAt)
            try await stores.insert(entry, in: transaction)
            if let alert = product.stockStatus.alert(after: before.stockStatus) {
                transaction.publish(try CatalogEvents.product(alert, product))
            }
            return entry
        }
    }

    /// Writes a changed product as its next version and publishes `product.updated`. Callers
    /// hold the product's lock, so the version read is still the current one.
    private static func save(_ product: inout Product, _ stores: CatalogRepository, in transaction: Transaction)
        async throws
    {
        let previousVersion = product.version
        product.version += 1
        product.updatedAt = Date.currentMillisecond
        guard try await stores.update(product, previousVersion: previousVersion, in: transaction) else {
            throw OrderlyError(.conflict, "the product changed meanwhile; retry", reason: "version_conflict")
        }
        transaction.publish(try CatalogEvents.product(CatalogAPI.Events.productUpdated, product))
    }

    private static let productChangeRefused = OrderlyError(
        .permissionDenied, "only admins and the store's owner and managers change products")

    /// The product, for a caller who may change it: `not_found` for one who may not see it,
    /// `permission_denied` for one who sees it but may not change it.
    private static func productForChange(
        _ id: ProductID, _ principal: Principal, _ stores: CatalogRepository, in transaction: Transaction
    ) async throws -> Product {
        let policy = AccessPolicy(principal)
        guard let product = try await stores.find(id, in: transaction.sql), policy.canSeeProducts(of: product.storeID)
        else { throw OrderlyError(.notFound, "no product \(id)") }
        guard policy.canChangeProducts(of: product.storeID) else {
            throw Self.productChangeRefused
        }
        return product
    }

    /// Refuses a sku or barcode another product of the store has (409 naming each).
    private static func checkCodes(
        of product: Product, _ stores: CatalogRepository, in transaction: Transaction
    ) async throws {
        let taken = try await stores.takenCodes(of: product, in: transaction.sql)
        guard !taken.isEmpty else { return }
        throw OrderlyError(
            .conflict, "\(taken.keys.sorted().joined(separator: " and ")) already used in the store",
            details: taken.mapValues { .string($0) })
    }
}
