import Contracts
import Domain
import Wire

/// The stores orders are created in, fetched from the catalog and kept for `lifetime`;
/// `store.created` and `store.updated` events replace an entry at once, so a pricing change
/// applies to the next order without waiting for the entry to expire.
actor StoreDirectory {
    private let catalog: any WireCaller
    private let lifetime: Duration
    private var entries: [StoreID: (store: Store, fetched: ContinuousClock.Instant)] = [:]

    init(catalog: any WireCaller, lifetime: Duration = .seconds(60)) {
        self.catalog = catalog
        self.lifetime = lifetime
    }

    /// The store, as `principal` may see it; a store the caller cannot see is `not_found`.
    func store(_ id: StoreID, for principal: Principal) async throws -> Store {
        if let entry = entries[id], ContinuousClock.now - entry.fetched < lifetime,
            AccessPolicy(principal).canSee(store: id)
        {
            return entry.store
        }
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
