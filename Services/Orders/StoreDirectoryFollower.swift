import Contracts
import Domain
import Events
import Runtime

/// Keeps every replica's `StoreDirectory` current with the catalog's `store.created` and
/// `store.updated`, so that a pricing change applies to the next order at once. Each replica
/// keeps its own directory, so each follows the stream in a group of its own.
struct StoreDirectoryFollower: EventFollower {
    static let producer = CatalogAPI.service
    static let types = [CatalogAPI.Events.storeCreated, CatalogAPI.Events.storeUpdated]
    static let replicaGroup: String? = "stores"

    let stores: StoreDirectory

    func apply(_ event: DomainEvent) async throws {
        await stores.remember(try event.payload.decode(as: Store.self))
    }
}
