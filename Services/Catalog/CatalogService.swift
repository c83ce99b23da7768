import Contracts
public import Runtime
public import Storage
import Wire
public import WireContract

/// The catalog service: stores (the tenants' profiles with their money and tax settings), their
/// products, the stock ledger and reservations.
public enum CatalogService: ServiceDefinition {
    public static let name = CatalogAPI.service
    public static let wirePort = 7202
    public static let adminPort = 9202
    /// The schema, applied at start before anything is served.
    public static let migrations = CatalogSchema.migrations
    public static let callers = CatalogAPI.callers

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
                environment.follow(OrderHoldsFollower(book: StockBook(database: database), logger: logger)),
                environment.follow(PaymentHoldsFollower(book: StockBook(database: database), logger: logger)),
                sweep,
            ])
    }
}
