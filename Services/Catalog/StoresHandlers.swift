import Contracts
import Domain
import Foundation
import Runtime
import Storage
import Wire

/// The catalog's Wire methods of stores: each decodes its request, asks `AccessPolicy`,
/// validates, calls the repository and publishes the store's events.
struct StoresHandlers: Sendable {
    let database: Database

    var stores: StoresRepository { StoresRepository(database: database) }
    var idempotency: IdempotencyStore { IdempotencyStore(database: database) }

    func register(in router: inout WireRouter) {
        router.register(CatalogAPI.createStore) { draft, context in
            try await createStore(draft, principal: context.requirePrincipal(), idempotencyKey: context.idempotencyKey)
        }
        router.register(CatalogAPI.getStore) { ref, context in
            let principal = try context.requirePrincipal()
            return Self.presented(try await store(ref.id, principal: principal), to: principal, context)
        }
        router.register(CatalogAPI.listStores) { request, context in
            let principal = try context.requirePrincipal()
            var page = try await listStores(request, principal: principal)
            page.data = page.data.map { Self.presented($0, to: principal, context) }
            return page
        }
        router.register(CatalogAPI.updateStore) { patch, context in
            let principal = try context.requirePrincipal()
            let store = try await updateStore(patch, principal: principal, idempotencyKey: context.idempotencyKey)
            return Self.presented(store, to: principal, context)
        }
    }

    /// `store` as the gateway's caller receives it (`AccessPolicy.present`); whole to the other
    /// services, which read its terms (the payments service, its commission).
    static func presented(_ store: Store, to principal: Principal, _ context: WireRequestContext) -> Store {
        context.callerService == GatewayAPI.service ? AccessPolicy(principal).present(store) : store
    }

    func createStore(_ draft: StoreDraft, principal: Principal, idempotencyKey: String?) async throws -> Store {
        let policy = AccessPolicy(principal)
        guard policy.canOpenStores else {
            throw OrderlyError(.permissionDenied, "only admins and supervisors open stores")
        }
        if !policy.canSetStoreTerms, draft.tier != nil || draft.commissionBP != nil {
            throw OrderlyError(.permissionDenied, "only admins set a store's tier and commission_bp")
        }
        let now = Date.currentMillisecond
        let skeleton = Store(
            id: draft.id ?? StoreID(), name: "", tier: .free, address: nil, phone: nil, currency: .ils,
            timezone: "Asia/Jerusalem", vatRates: .standard, deliveryPricing: .standard, lowStockDefault: 5,
            version: 1, createdAt: now, updatedAt: now)
        let created = try draft.validated(creating: skeleton)
        let stores = self.stores
        return try await idempotency.write(
            key: idempotencyKey, caller: principal.userID, scope: "catalog.stores.create", request: draft
        ) {
            transaction in
            try await transaction.lock(.store(created.id))
            if try await stores.find(created.id, in: transaction.sql) != nil {
                throw OrderlyError(
                    .conflict, "a store \(created.id) exists already", details: ["id": .string("is taken")])
            }
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

    /// The most stores one `open_now` page reads through: a page may hold fewer open stores
    /// than asked for, even none, and still a cursor to read on from.
    static let openNowScanLimit = 1000

    /// The stores the caller sees, in creation order; with `open_now`, those open now, read
    /// through the stores after the cursor until a page is full or `openNowScanLimit` stores
    /// were read.
    func listStores(_ request: StoreListRequest, principal: Principal) async throws -> Page<Store> {
        let limit = try KeysetCursor.limit(request.limit)
        var cursor = try request.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let scope = AccessPolicy(principal).visibleStores
        let counting = request.count == true
        guard request.openNow == true else {
            return try await stores.list(scope, after: cursor, limit: limit, counting: counting)
        }
        let now = Date()
        let total = counting ? try await openStores(scope, at: now) : nil
        var open: [Store] = []
        var scanned = 0
        while true {
            if scanned >= Self.openNowScanLimit { return Page(data: open, nextCursor: cursor?.token, total: total) }
            let page = try await stores.list(scope, after: cursor, limit: PageRequest.maximumLimit)
            scanned += page.data.count
            for store in page.data where store.isOpen(at: now) {
                if open.count == limit {
                    let last = open[open.count - 1]
                    let next = KeysetCursor(key: last.createdAt.millisecondsSince1970, id: last.id.description)
                    return Page(data: open, nextCursor: next.token, total: total)
                }
                open.append(store)
            }
            guard let next = page.nextCursor else { return Page(data: open, nextCursor: nil, total: total) }
            cursor = try KeysetCursor(token: next)
        }
    }

    /// How many of the stores in `scope` are open at `now`: they are read through, up to
    /// `ListTotal.bound` of them; past that, those found open so far, marked estimated.
    private func openStores(_ scope: StoreScope, at now: Date) async throws -> ListTotal {
        var cursor: KeysetCursor?
        var (open, scanned) = (0, 0)
        while scanned < ListTotal.bound {
            let page = try await stores.list(scope, after: cursor, limit: PageRequest.maximumLimit)
            scanned += page.data.count
            open += page.data.count { $0.isOpen(at: now) }
            guard let next = page.nextCursor else { return ListTotal(count: open, estimated: false) }
            cursor = try KeysetCursor(token: next)
        }
        return ListTotal(count: open, estimated: true)
    }

    func updateStore(_ patch: StorePatch, principal: Principal, idempotencyKey: String?) async throws -> Store {
        let policy = AccessPolicy(principal)
        guard policy.canSee(store: patch.id) else { throw OrderlyError(.notFound, "no store \(patch.id)") }
        guard policy.canEditPublicProfile(of: patch.id) else {
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
            // A client that sends the store back as it read it may repeat its tier.
            if let tier = patch.changes.tier, tier != store.tier, !policy.canSetStoreTerms {
                throw OrderlyError(.permissionDenied, "only admins change a store's tier")
            }
            if let bp = patch.changes.commissionBP, bp != (store.commissionBP ?? 0), !policy.canSetStoreTerms {
                throw OrderlyError(.permissionDenied, "only admins change a store's commission_bp")
            }
            let previousVersion = store.version
            let before = store
            store = try patch.changes.validated(updating: before)
            try policy.checkChange(from: before, to: store)
            store.version += 1
            store.updatedAt = Date.currentMillisecond
            guard try await stores.update(store, previousVersion: previousVersion, in: transaction) else {
                throw OrderlyError(.versionConflict, "the store changed meanwhile; retry")
            }
            transaction.publish(try CatalogEvents.storeUpdated(store))
            return store
        }
    }
}
