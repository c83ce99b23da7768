import Contracts
public import Runtime
public import Storage
public import Wire

/// The payments service: payments and their receipts. For now cash payments, recorded as
/// completed when they are taken; the card lifecycle comes later.
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

    /// The service over `environment`, calling its catalog and orders upstreams: what the
    /// process runs, and what tests run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        var router = WireRouter()
        PaymentsHandlers(
            database: environment.database, catalog: try environment.upstream(CatalogAPI.service),
            orders: try environment.upstream(OrdersAPI.service)
        ).register(in: &router)
        return ServiceParts(router: router, consumers: PaymentsEvents.consumers(environment))
    }
}
