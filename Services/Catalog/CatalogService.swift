import Contracts
public import Runtime
public import Storage
public import Wire

/// The catalog service: stores (the tenants' profiles with their money and tax settings), their
/// products, the stock ledger and reservations.
public enum CatalogService: ServiceDefinition {
    public static let name = CatalogAPI.service
    public static let wirePort = 7202
    public static let adminPort = 9202
    /// The schema, applied at start before anything is served.
    public static let migrations = CatalogSchema.migrations
    /// The gateway calls everything; orders and payments read stores and products and hold,
    /// sell and give back stock for the sales they make.
    public static let callers = WireCallers([
        GatewayAPI.service: WireCallers.everything, OrdersAPI.service: selling, PaymentsAPI.service: selling,
    ])
    private static let selling = WireCallers.only(
        CatalogAPI.getStore.name, CatalogAPI.getProduct.name, CatalogAPI.checkoutProducts.name, CatalogAPI.reserve.name,
        CatalogAPI.getReservation.name, CatalogAPI.commitReservation.name, CatalogAPI.releaseReservation.name)

    /// How often held reservations are checked for expiry: the longest one outlives its time.
    public static let reservationSweepInterval = Duration.seconds(1)

    /// The service over `environment`: what the process runs, and what tests run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        let (database, logger) = (environment.database, environment.logger)
        let reservations = ReservationsHandlers(database: database)
        var router = WireRouter()
        StoresHandlers(database: database).register(in: &router)
        ProductsHandlers(database: database).register(in: &router)
        reservations.register(in: &router)
        let sweep = DueSweep("reservations", every: reservationSweepInterval, logger: logger) {
            try await reservations.expireDue(limit: $0)
        }
        return ServiceParts(
            router: router,
            consumers: [
                environment.follow(OrdersFollower(holds: reservations, logger: logger)),
                environment.follow(PaymentsFollower(holds: reservations, logger: logger)),
                sweep,
            ])
    }
}
