import Contracts
import Domain
import Foundation
public import Runtime
public import Storage
import Wire
public import WireContract

/// The orders service: orders of every store, created by store staff and taken by couriers.
public enum OrdersService: ServiceDefinition {
    public static let name = OrdersAPI.service
    public static let wirePort = 7201
    public static let adminPort = 9201
    /// The services it calls, with their default addresses.
    public static let upstreams = [CatalogAPI.service: "127.0.0.1:7202"]
    /// The schema, applied at start before anything is served.
    public static let migrations = OrdersSchema.migrations
    /// How often card orders nobody paid for in time are looked for.
    public static let unpaidSweepInterval = Duration.seconds(5)
    public static let callers = OrdersAPI.callers

    /// The service over `environment`, asking its catalog upstream for stores, products and
    /// the stock of catalog lines: what the process runs, and what tests run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        let catalog = try environment.upstream(CatalogAPI.service)
        let stores = StoreDirectory(catalog: catalog)
        let orders = OrdersRepository(database: environment.database)
        var router = WireRouter()
        let settings = try OrdersSettings.read(from: environment.configuration)
        let handlers = OrdersHandlers(
            database: environment.database, stores: stores, catalog: catalog, lineHoldSeconds: settings.lineHoldSeconds,
            logger: environment.logger)
        handlers.register(in: &router)
        return ServiceParts(
            router: router,
            consumers: [
                environment.follow(StoreDirectoryFollower(stores: stores)),
                environment.follow(PaidAmountsFollower(database: environment.database, orders: orders)),
                environment.follow(ErasedCustomersFollower(database: environment.database, orders: orders)),
                DueSweep("unpaid card orders", every: unpaidSweepInterval, logger: environment.logger) {
                    try await handlers.book.cancelUnpaid(limit: $0)
                },
            ],
            housekeeping: [
                // A release counts against the courier's limit for a day, and no longer.
                Housekeeping.Job("order releases") {
                    try await orders.removeReleases(before: Date().addingTimeInterval(-OrderPool.releaseWindow))
                }
            ])
    }
}
