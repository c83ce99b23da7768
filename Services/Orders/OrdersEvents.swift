import Contracts
import Domain
import Events
import Foundation
import JSON
import Redis
import Runtime
import ServiceLifecycle
import Wire

/// The orders service's events: what it publishes (`order.created` with the order, the others
/// with an `OrderChange`), and what it consumes: the catalog's `store.created` and
/// `store.updated`, which keep `StoreDirectory` current.
struct OrdersEvents: Sendable {
    let stores: StoreDirectory

    static func created(_ order: Order, document: String) -> DomainEvent {
        DomainEvent(
            type: OrdersAPI.Events.created, storeID: order.storeID, aggregateID: order.id.description,
            occurredAt: order.createdAt, payload: EventPayload(encodedJSON: document))
    }

    /// The event of a change: `type` is one of `OrdersAPI.Events`.
    static func changed(_ type: String, _ change: OrderChange) throws -> DomainEvent {
        DomainEvent(
            type: type, storeID: change.order.storeID, aggregateID: change.order.id.description,
            occurredAt: change.order.updatedAt, payload: try EventPayload(encoding: change))
    }

    /// What each consumed event does.
    var handlers: [String: EventConsumer.Handler] {
        let stores = self.stores
        let remember: EventConsumer.Handler = { event in await stores.remember(try event.payload.decode(as: Store.self))
        }
        return [CatalogAPI.Events.storeCreated: remember, CatalogAPI.Events.storeUpdated: remember]
    }

    /// The consumers the process runs beside its Wire server. Every replica keeps its own store
    /// cache, so each reads the catalog's events in a group of its own, for as long as it runs.
    func consumers(_ environment: ServiceEnvironment) -> [any Service] {
        let instance = environment.instance
        return [
            EventConsumer(
                redis: environment.consumerRedis(),
                configuration: EventConsumerConfiguration(
                    stream: eventStream(of: CatalogAPI.service), group: "orders.stores.\(instance)", consumer: instance,
                    durableGroup: false),
                handlers: handlers, logger: environment.logger)
        ]
    }
}

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
