import Contracts
public import Runtime
public import Storage
public import Wire

/// The payments service: payments through their lifecycle, with the stock they sell held by
/// the catalog, the providers' signed reports, and receipts.
public enum PaymentsService: ServiceDefinition {
    public static let name = PaymentsAPI.service
    public static let wirePort = 7203
    public static let adminPort = 9203
    /// The services it calls, with their default addresses.
    public static let upstreams = [CatalogAPI.service: "127.0.0.1:7202", OrdersAPI.service: "127.0.0.1:7201"]
    /// The schema, applied at start before anything is served.
    public static let migrations = PaymentsSchema.migrations
    /// Only the gateway calls it.
    public static let callers = WireCallers([GatewayCaller.service: WireCallers.everything])

    /// How often pending payments are checked for expiry.
    public static let expirySweepInterval = Duration.seconds(1)

    /// The service over `environment`, calling its catalog and orders upstreams, with its
    /// providers read from `environment.configuration`: what the process runs, and what tests
    /// run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        let handlers = PaymentsHandlers(
            database: environment.database, catalog: try environment.upstream(CatalogAPI.service),
            orders: try environment.upstream(OrdersAPI.service),
            settings: try PaymentsSettings.read(from: environment.configuration), logger: environment.logger)
        var router = WireRouter()
        handlers.register(in: &router)
        let sweep = DueSweep("payments", every: expirySweepInterval, logger: environment.logger) {
            try await handlers.expireDue(limit: $0)
        }
        let roster = StaffRoster(database: environment.database, payments: handlers.payments)
        return ServiceParts(
            router: router, consumers: [sweep, roster.consumer(environment), handlers.stats.consumer(environment)])
    }
}
