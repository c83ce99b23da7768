import Contracts
import Domain
import Foundation
import Runtime
import SQLKit
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
            let principal = try context.principalOrVisitor(gateway: GatewayAPI.service)
            return Self.presented(try await store(ref.id, principal: principal), to: principal, context)
        }
        router.register(CatalogAPI.listStores) { request, context in
            let principal = try context.principalOrVisitor(gateway: GatewayAPI.service)
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

    /// `store` as the gateway's caller receives it (`AccessPolicy.present`, a visitor its public
    /// profile); whole to the other services, which read its terms (the payments service, its
    /// commission).
    static func presented(_ store: Store, to principal: Principal?, _ context: WireRequestContext) -> Store {
        guard context.callerService == GatewayAPI.service else { return store }
        return principal.map { AccessPolicy($0).present(store) } ?? AccessPolicy.presentToVisitor(store)
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

    /// A store the caller sees; a visitor (nil) sees every one.
    func store(_ id: StoreID, principal: Principal?) async throws -> Store {
        guard principal.map({ AccessPolicy($0).canSee(store: id) }) ?? true,
            let store = try await database.read({ try await stores.find(id, in: $0) })
        else { throw OrderlyError(.notFound, "no store \(id)") }
        return store
    }

    /// The most stores one filtered page reads through (`open_now`, `cuisine`): a page may hold
    /// fewer stores than asked for, even none, and still a cursor to read on from.
    static let filterScanLimit = 1000

    /// The stores the caller sees (a visitor without an account, every one), filtered by
    /// `request`. Near a place, those that deliver there, nearest first, each with its distance
    /// and delivery fee; otherwise in creation order, the stores after the cursor read through
    /// until a page is full or `filterScanLimit` were read.
    func listStores(_ request: StoreListRequest, principal: Principal?) async throws -> Page<Store> {
        let limit = try KeysetCursor.limit(request.limit)
        var cursor = try request.cursor.map { cursor throws(OrderlyError) in try KeysetCursor(token: cursor) }
        let scope = principal.map { AccessPolicy($0).visibleStores } ?? .every
        var problems = FieldProblems()
        request.near?.validate(into: &problems, field: "near")
        if request.sort == .distance, request.near == nil { problems.add("sort", "needs near") }
        try problems.check()
        let words = request.query.map(SearchWords.query) ?? []
        let filter = StoreFilter(openNow: request.openNow == true, cuisine: request.cuisine, at: Date())
        if let near = request.near {
            return try await storesNear(
                near, words: words, filter: filter, scope: scope, after: cursor, limit: limit,
                counting: request.count == true)
        }
        var source: SQLQueryString = "stores WHERE " + scope.condition(on: "id")
        if !words.isEmpty { source = source + " AND " + StoreSearch.matching(words, column: "id", kind: database.kind) }
        let counting = request.count == true
        guard !filter.isEmpty else {
            return try await stores.list(source, after: cursor, limit: limit, counting: counting)
        }
        let total = counting ? try await matching(source, filter) : nil
        var found: [Store] = []
        var scanned = 0
        while true {
            if scanned >= Self.filterScanLimit { return Page(data: found, nextCursor: cursor?.token, total: total) }
            let page = try await stores.list(source, after: cursor, limit: PageRequest.maximumLimit)
            scanned += page.data.count
            for store in page.data where filter.admits(store) {
                if found.count == limit {
                    let last = found[found.count - 1]
                    let next = KeysetCursor(key: last.createdAt.millisecondsSince1970, id: last.id.description)
                    return Page(data: found, nextCursor: next.token, total: total)
                }
                found.append(store)
            }
            guard let next = page.nextCursor else { return Page(data: found, nextCursor: nil, total: total) }
            cursor = try KeysetCursor(token: next)
        }
    }

    /// How many of the stores of `source` `filter` admits: they are read through, up to
    /// `ListTotal.bound` of them; past that, those admitted so far, marked estimated.
    private func matching(_ source: SQLQueryString, _ filter: StoreFilter) async throws -> ListTotal {
        var cursor: KeysetCursor?
        var (admitted, scanned) = (0, 0)
        while scanned < ListTotal.bound {
            let page = try await stores.list(source, after: cursor, limit: PageRequest.maximumLimit)
            scanned += page.data.count
            admitted += page.data.count { filter.admits($0) }
            guard let next = page.nextCursor else { return ListTotal(count: admitted, estimated: false) }
            cursor = try KeysetCursor(token: next)
        }
        return ListTotal(count: admitted, estimated: true)
    }

    /// The stores that deliver to `place`, nearest first (then by id), after the cursor (its key
    /// a distance in metres), each with its distance and the fee of a one-box delivery there.
    /// The index's rows alone decide which deliver there and in what order; only the documents
    /// of the page (and those the filter passes over) are read.
    private func storesNear(
        _ place: GeoPoint, words: [String], filter: StoreFilter, scope: StoreScope, after cursor: KeysetCursor?,
        limit: Int, counting: Bool
    ) async throws -> Page<Store> {
        let kind = database.kind
        let candidates = try await database.read { sql in
            try await StoreSearch.candidates(near: place, words: words, scope: scope, in: sql, kind: kind)
        }
        var inside: [(metres: Int, id: StoreID)] = candidates.compactMap { candidate in
            guard candidate.area.contains(place, centre: candidate.location) else { return nil }
            return (Int(candidate.location.distance(to: place).rounded()), candidate.id)
        }
        inside.sort { ($0.metres, $0.id.description) < ($1.metres, $1.id.description) }
        let estimated = candidates.count >= StoreSearch.maximumCandidates
        var total = counting && filter.isEmpty ? ListTotal(count: inside.count, estimated: estimated) : nil
        if counting, !filter.isEmpty {
            let all = try await database.read { try await StoreSearch.stores(inside.map(\.id), in: $0) }
            total = ListTotal(count: all.values.count { filter.admits($0) }, estimated: estimated)
        }
        if let cursor { inside.removeAll { ($0.metres, $0.id.description) <= (Int(cursor.key), cursor.id) } }
        // Read in the order found, a chunk at a time, until the page and one more are found.
        var found: [Store] = []
        var next = inside[...]
        while found.count <= limit, !next.isEmpty {
            let chunk = next.prefix(max(limit + 1, 50))
            next = next.dropFirst(chunk.count)
            let stores = try await database.read { try await StoreSearch.stores(chunk.map(\.id), in: $0) }
            for (metres, id) in chunk {
                guard var store = stores[id], filter.admits(store) else { continue }
                store.distanceMetres = metres
                store.deliveryFee = store.deliveryPricing.quote(forBoxes: 1).map {
                    $0.fee + store.deliveryPricing.surcharge(forMetres: metres)
                }
                found.append(store)
                if found.count > limit { break }
            }
        }
        guard found.count > limit else { return Page(data: found, nextCursor: nil, total: total) }
        let last = found[limit - 1]
        let cursorAfter = KeysetCursor(key: Int64(last.distanceMetres ?? 0), id: last.id.description)
        return Page(data: Array(found.prefix(limit)), nextCursor: cursorAfter.token, total: total)
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
