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
        router.register(CatalogAPI.menu) { ref, context in
            try await menu(of: ref.id, principal: context.requirePrincipal())
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
        router.register(CatalogAPI.reserve) { request, context in
            try await reserve(
                request, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey,
                caller: context.callerService)
        }
        router.register(CatalogAPI.getReservation) { ref, context in
            try await reservation(ref.id, principal: context.requirePrincipal())
        }
        router.register(CatalogAPI.commitReservation) { ref, context in
            try await end(ref.id, as: .committed, by: context.requirePrincipal())
        }
        router.register(CatalogAPI.releaseReservation) { ref, context in
            try await end(ref.id, as: .released, by: context.requirePrincipal(), caller: context.callerService)
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

    /// The stores the caller sees, in creation order; with `open_now`, those open now, read
    /// through the stores after the cursor until a page is full.
    func listStores(_ request: StoreListRequest, principal: Principal) async throws -> Page<Store> {
        let limit = try KeysetCursor.limit(request.limit)
        var cursor = try request.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let scope = AccessPolicy(principal).visibleStores
        guard request.openNow == true else { return try await stores.list(scope, after: cursor, limit: limit) }
        let now = Date()
        var open: [Store] = []
        while true {
            let page = try await stores.list(scope, after: cursor, limit: PageRequest.maximumLimit)
            for store in page.data where store.isOpen(at: now) {
                if open.count == limit {
                    let last = open[open.count - 1]
                    let next = KeysetCursor(key: last.createdAt.millisecondsSince1970, id: last.id.description)
                    return Page(data: open, nextCursor: next.token)
                }
                open.append(store)
            }
            guard let next = page.nextCursor else { return Page(data: open, nextCursor: nil) }
            cursor = try KeysetCursor(token: next)
        }
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
        if let required = draft.requireClockIn { store.requireClockIn = required }
        if let imageURL = draft.imageURL { store.imageURL = problems.webAddress(imageURL, "image_url") }
        if let cuisine = draft.cuisine { store.cuisine = problems.optionalText(cuisine, "cuisine", maximumLength: 100) }
        if let hours = draft.openingHours {
            hours.validate(into: &problems, field: "opening_hours")
            store.openingHours = hours.isEmpty ? nil : hours
        }
        try problems.check()
    }

    // MARK: Products and stock

    func menu(of id: StoreID, principal: Principal) async throws -> Menu {
        guard AccessPolicy(principal).canSeeMenu(of: id),
            let store = try await database.read({ try await stores.find(id, in: $0) })
        else { throw OrderlyError(.notFound, "no store \(id)") }
        return Menu(store: store, products: try await stores.activeProducts(of: id))
    }

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
                try await stores.appendLedger(
                    created, from: 0, reason: .initial, by: principal.userID, at: now, in: transaction)
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

    /// A page of a store's products matching the request's filters. A category no product of
    /// the store carries is named as a bad filter rather than answered with nothing.
    func listProducts(_ request: ProductListRequest, principal: Principal) async throws -> Page<Product> {
        guard AccessPolicy(principal).canSeeProducts(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let page = try await stores.list(request, after: cursor, limit: limit)
        // Only an empty answer can come of a category no product carries; that one is named.
        if page.data.isEmpty, let category = request.category,
            try await !stores.hasCategory(category, in: request.storeID)
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
        let changed = try await stores.changes(of: request.storeID, since: since, limit: limit)
        return ProductChangesPage(data: changed.products, nextCursor: String(changed.last), hasMore: changed.hasMore)
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
            let before = product
            try patch.changes.apply(to: &product, creating: false)
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
            try await Self.save(&product, stores, in: transaction, alertingAfter: before.stockStatus)
            return try await stores.appendLedger(
                product, from: before.quantity, reason: reason, notes: notes, reference: reference,
                by: principal.userID, at: product.updatedAt, clientCreatedAt: request.adjustment.clientCreatedAt,
                in: transaction)
        }
    }

    /// A page of a product's ledger, oldest entry first.
    func stockLedger(_ request: StockLedgerRequest, principal: Principal) async throws -> Page<StockLedgerEntry> {
        let product = try await product(request.productID, principal: principal)
        let limit = try KeysetCursor.limit(request.page.limit)
        let cursor = try request.page.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        return try await stores.ledger(of: product.id, after: cursor, limit: limit)
    }

    // MARK: Reservations

    /// Holds every line's units, or none: lines naming what is not a stock-tracked active
    /// product of the store are bad fields; products without enough available are named
    /// together in one `409 insufficient_stock` (`details.products`). Each product is locked
    /// while it is checked and changed, in id order, so concurrent reservations never hold
    /// more than there is and never wait on each other in a circle.
    func reserve(
        _ request: NewReservation, principal: Principal, idempotencyKey: String?,
        caller: String = GatewayCaller.service
    ) async throws -> Reservation {
        guard AccessPolicy(principal).canReserveStock(of: request.storeID) else {
            throw OrderlyError(.notFound, "no store \(request.storeID)")
        }
        if request.orderID != nil, caller != OrdersAPI.service {
            throw OrderlyError.invalidFields(["order_id": "is set by the orders service for its orders' lines"])
        }
        if request.paymentID != nil, caller != PaymentsAPI.service {
            throw OrderlyError.invalidFields(["payment_id": "is set by the payments service for its payments"])
        }
        let (lines, reference, seconds) = try request.validated()
        let now = Date.currentMillisecond
        let reservation = Reservation(
            id: request.id ?? ReservationID(), storeID: request.storeID, lines: lines, reference: reference,
            orderID: request.orderID, paymentID: request.paymentID,
            expiresAt: now.addingTimeInterval(TimeInterval(seconds)),
            createdBy: principal.userID, createdAt: now,
            updatedAt: now)
        let stores = self.stores
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.reservations.create:\(request.storeID)",
            request: request
        ) { transaction in
            try await transaction.lock("catalog.reservation:\(reservation.id)")
            if try await stores.find(reservation.id, in: transaction.sql) != nil {
                throw OrderlyError(
                    .conflict, "a reservation \(reservation.id) exists already", details: ["id": .string("is taken")])
            }
            let products = try await Self.lockedProducts(of: lines, stores, in: transaction)
            var problems = FieldProblems()
            var short: [JSONValue] = []
            for (index, line) in lines.enumerated() {
                guard let product = products[line.productID], product.storeID == reservation.storeID else {
                    problems.add("lines[\(index)].product_id", "is not a product of the store")
                    continue
                }
                if !product.active {
                    problems.add("lines[\(index)].product_id", "is inactive and cannot be sold")
                } else if !product.trackStock {
                    problems.add("lines[\(index)].product_id", "does not track stock, so there is nothing to reserve")
                } else if (try? product.checkReservable(line.quantity)) == nil {
                    short.append(
                        .object([
                            "product_id": .string(product.id.description), "available": .int(max(0, product.available)),
                            "requested": .int(line.quantity),
                        ]))
                }
            }
            try problems.check()
            guard short.isEmpty else {
                throw OrderlyError(
                    .conflict, "not enough stock for \(short.count) of the lines", reason: "insufficient_stock",
                    details: ["products": .array(short)])
            }
            for line in lines {
                guard var product = products[line.productID] else { continue }
                let before = product.stockStatus
                product.reserved += line.quantity
                try await Self.save(&product, stores, in: transaction, alertingAfter: before)
            }
            try await stores.insert(reservation, in: transaction)
            return reservation
        }
    }

    func reservation(_ id: ReservationID, principal: Principal) async throws -> Reservation {
        guard let reservation = try await database.read({ try await stores.find(id, in: $0) }),
            AccessPolicy(principal).canReserveStock(of: reservation.storeID)
        else { throw OrderlyError(.notFound, "no reservation \(id)") }
        return reservation
    }

    /// Ends a held reservation: `committed` sells its units (a `sale` ledger entry per line,
    /// referencing the reservation's reference or else its id); `released` and `expired` give
    /// them back. `principal` is nil for the catalog's own sweeps. Ending it again as it ended is
    /// harmless and answers it as it is. A reservation for an order's line ends with the order
    /// (`OrderHolds`), one for a payment with the payment (`PaymentHolds`); only the orders or
    /// payments service may give one back early (a line or payment it could not store).
    @discardableResult
    func end(
        _ id: ReservationID, as outcome: ReservationStatus, by principal: Principal?,
        caller: String = GatewayCaller.service
    ) async throws -> Reservation {
        let stores = self.stores
        return try await database.transaction { transaction in
            try await transaction.lock("catalog.reservation:\(id)")
            guard var reservation = try await stores.find(id, in: transaction.sql),
                principal.map({ AccessPolicy($0).canReserveStock(of: reservation.storeID) }) ?? true
            else { throw OrderlyError(.notFound, "no reservation \(id)") }
            if let order = reservation.orderID, principal != nil,
                !(caller == OrdersAPI.service && outcome == .released)
            {
                throw OrderlyError(
                    .failedPrecondition, "the reservation holds stock for order \(order) and ends with it",
                    reason: "held_for_order")
            }
            if let payment = reservation.paymentID, principal != nil,
                !(caller == PaymentsAPI.service && outcome == .released)
            {
                throw OrderlyError(
                    .failedPrecondition, "the reservation holds stock for payment \(payment) and ends with it",
                    reason: "held_for_payment")
            }
            try await Self.end(&reservation, as: outcome, by: principal?.userID, stores, in: transaction)
            return reservation
        }
    }

    /// Ends `reservation` as `outcome` within `transaction`, which holds its lock. Does nothing
    /// when it ended so already.
    static func end(
        _ reservation: inout Reservation, as outcome: ReservationStatus, by user: UserID?,
        _ stores: CatalogRepository, in transaction: Transaction
    ) async throws {
        let now = Date.currentMillisecond
        guard try reservation.ends(as: outcome, at: now) else { return }
        // A reservation names each product once, so each is read once here.
        let products = try await lockedProducts(of: reservation.lines, stores, in: transaction)
        for line in reservation.lines {
            guard var product = products[line.productID] else {
                throw StorageError.unexpected("reservation \(reservation.id) holds a product that is gone")
            }
            let before = product
            product.reserved -= line.quantity
            // Units held are sold whatever is available now: they were promised when held.
            if outcome == .committed { product.quantity -= line.quantity }
            try await save(&product, stores, in: transaction, alertingAfter: before.stockStatus)
            if outcome == .committed {
                try await stores.appendLedger(
                    product, from: before.quantity, reason: .sale,
                    reference: reservation.reference ?? reservation.id.description,
                    by: user ?? reservation.createdBy, at: now, in: transaction)
            }
        }
        reservation.status = outcome
        reservation.updatedAt = now
        try await stores.update(reservation, in: transaction)
    }

    /// Holds a reservation that expired or was released again, when its stock is available, or
    /// with `regardless`, whatever is available (units already handed over, about to be sold).
    /// Returns whether it is held now; a committed one never is again.
    static func holdAgain(
        _ reservation: inout Reservation, regardless: Bool = false, _ stores: CatalogRepository,
        in transaction: Transaction
    ) async throws -> Bool {
        guard reservation.status != .committed else { return false }
        let products = try await lockedProducts(of: reservation.lines, stores, in: transaction)
        for line in reservation.lines {
            guard let product = products[line.productID] else { return false }
            if !regardless, (try? product.checkReservable(line.quantity)) == nil { return false }
        }
        for line in reservation.lines {
            guard var product = products[line.productID] else { continue }
            let before = product.stockStatus
            product.reserved += line.quantity
            try await save(&product, stores, in: transaction, alertingAfter: before)
        }
        reservation.status = .held
        reservation.updatedAt = Date.currentMillisecond
        try await stores.update(reservation, in: transaction)
        return true
    }

    /// Expires the held reservations whose time has run out, a batch at a time; returns how many.
    /// Any replica may run it beside the others: each reservation ends under its own lock, once.
    func expireDue(limit: Int = 100) async throws -> Int {
        var expired = 0
        for id in try await stores.due(at: Date.currentMillisecond, limit: limit) {
            try await end(id, as: .expired, by: nil)
            expired += 1
        }
        return expired
    }

    /// The products of `lines`, each locked for the rest of the transaction, taken in id order.
    static func lockedProducts(
        of lines: [Reservation.Line], _ stores: CatalogRepository, in transaction: Transaction
    ) async throws -> [ProductID: Product] {
        var products: [ProductID: Product] = [:]
        for id in lines.map(\.productID).sorted(by: { $0.description < $1.description }) {
            try await transaction.lock("catalog.product:\(id)")
            products[id] = try await stores.find(id, in: transaction.sql)
        }
        return products
    }

    /// Writes a changed product as its next version and publishes `product.updated`, and
    /// `stock.low` or `stock.out` when its stock crossed into that status from `before`.
    /// Callers hold the product's lock, so the version read is still the current one.
    static func save(
        _ product: inout Product, _ stores: CatalogRepository, in transaction: Transaction,
        alertingAfter before: StockStatus? = nil
    ) async throws {
        let previousVersion = product.version
        product.version += 1
        product.updatedAt = Date.currentMillisecond
        guard try await stores.update(product, previousVersion: previousVersion, in: transaction) else {
            throw OrderlyError(.conflict, "the product changed meanwhile; retry", reason: "version_conflict")
        }
        transaction.publish(try CatalogEvents.product(CatalogAPI.Events.productUpdated, product))
        if let before, let alert = product.stockStatus.alert(after: before) {
            transaction.publish(try CatalogEvents.product(alert, product))
        }
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
