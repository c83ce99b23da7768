import Contracts
import Domain
import JSON
import Redis
import Runtime
import ServiceLifecycle

/// The catalog's events: what it publishes, `store.created` and `store.updated` with the store
/// as payload, and what it consumes: no other service's events so far.
enum CatalogEvents {
    static func storeCreated(_ store: Store) throws -> DomainEvent {
        try event(CatalogAPI.Events.storeCreated, store)
    }

    static func storeUpdated(_ store: Store) throws -> DomainEvent {
        try event(CatalogAPI.Events.storeUpdated, store)
    }

    private static func event(_ type: String, _ store: Store) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: store.id, aggregateID: store.id.description, occurredAt: store.updatedAt,
            payload: try EventPayload(encoding: store))
    }

    /// The consumers the process runs beside its Wire server: none, as the catalog reacts to
    /// no other service's events yet.
    static func consumers(_ environment: ServiceEnvironment) -> [any Service] { [] }
}
