internal import Contracts
internal import Domain
internal import Foundation
internal import Wire

/// The stores orders are created in, fetched from the catalog over Wire and kept for
/// `lifetime`; `store.created` and `store.updated` events replace an entry at once, so a
/// pricing change applies to the next order without waiting for the entry to expire.
actor StoreDirectory {
    private let catalog: WireClient
    private let lifetime: Duration
    private var entries: [StoreID: (store: Store, fetched: ContinuousClock.Instant)] = [:]

    init(catalog: WireClient, lifetime: Duration = .seconds(60)) {
        self.catalog = catalog
        self.lifetime = lifetime
    }

    /// The store, as `principal` may see it; a store the caller cannot see is `not_found`.
    func store(_ id: StoreID, for principal: Principal) async throws -> Store {
        if let entry = entries[id], ContinuousClock.now - entry.fetched < lifetime { return entry.store }
        let store = try await catalog.call(
            CatalogAPI.getStore, ResourceRef(id: id), options: WireCallOptions(principal: principal))
        remember(store)
        return store
    }

    /// Keeps `store` unless a newer version is already known.
    func remember(_ store: Store) {
        if let known = entries[store.id]?.store, known.version > store.version { return }
        entries[store.id] = (store, ContinuousClock.now)
    }
}
