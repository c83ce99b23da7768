internal import Contracts
internal import Domain
internal import Foundation
public import Logging
internal import Redis
public import Runtime
public import ServiceLifecycle
internal import Storage
internal import Wire

/// The orders service: orders of every store, created by store staff and taken by couriers.
public enum OrdersService {
    public static let name = OrdersAPI.service
    public static let wirePort = 7201
    public static let adminPort = 9201
    /// The services it calls, with their default addresses.
    public static let upstreams = [CatalogAPI.service: "127.0.0.1:\(7202)"]

    /// The process's parts, ready for `ServiceRunner`.
    public static func services(settings: ServiceSettings, logger: Logger) async throws -> [any Service] {
        let host = try await ServiceHost.start(settings: settings, logger: logger, migrations: OrdersSchema.migrations)
        let directory = StoreDirectory(catalog: host.upstream(CatalogAPI.service))
        let handlers = OrderHandlers(database: host.database, directory: directory)
        var router = WireRouter()
        handlers.register(in: &router)
        // Every replica keeps its own store cache, so each reads the catalog's events in a
        // group of its own.
        let storeEvents = EventConsumer(
            redis: host.consumerRedis(),
            configuration: EventConsumerConfiguration(
                stream: eventStream(of: CatalogAPI.service), group: "orders.stores.\(settings.instance)",
                consumer: settings.instance),
            handlers: [
                "store.created": { event in await directory.remember(try event.payload.decode(as: Store.self)) },
                "store.updated": { event in await directory.remember(try event.payload.decode(as: Store.self)) },
            ],
            logger: logger)
        return host.services(router: router, parts: [storeEvents])
    }
}
