import Contracts
import Domain
import Events
import JSON

/// The catalog's events: what it publishes, `store.created` and `store.updated` with the store
/// as payload, `product.created`, `product.updated`, `stock.low` and `stock.out` with the
/// product. What it follows is `OrderHoldsFollower`'s and `PaymentHoldsFollower`'s.
enum CatalogEvents {
    static func storeCreated(_ store: Store) throws -> DomainEvent {
        try event(CatalogAPI.Events.storeCreated, store)
    }

    static func storeUpdated(_ store: Store) throws -> DomainEvent {
        try event(CatalogAPI.Events.storeUpdated, store)
    }

    /// A product's event: `product.created`, `product.updated`, `stock.low` or `stock.out`.
    static func product(_ type: String, _ product: Product) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: product.storeID, aggregateID: product.id.description, occurredAt: product.updatedAt,
            payload: try EventPayload(encoding: product))
    }

    private static func event(_ type: String, _ store: Store) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: store.id, aggregateID: store.id.description, occurredAt: store.updatedAt,
            payload: try EventPayload(encoding: store))
    }
}
