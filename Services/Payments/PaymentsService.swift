import Contracts
public import Runtime
public import Storage
import Wire
public import WireContract

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
    public static let callers = PaymentsAPI.callers

    /// How often pending payments are checked for expiry.
    public static let expirySweepInterval = Duration.seconds(1)

    /// The service over `environment`, calling its catalog and orders upstreams, with its
    /// providers read from `environment.configuration`: what the process runs, and what tests
    /// run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        let (database, logger) = (environment.database, environment.logger)
        let payments = PaymentsHandlers(
            database: database, catalog: try environment.upstream(CatalogAPI.service),
            orders: try environment.upstream(OrdersAPI.service), logger: logger)
        let settings = try PaymentsSettings.read(from: environment.configuration)
        var router = WireRouter()
        payments.register(in: &router)
        RefundsHandlers(database: database, catalog: payments.catalog, orders: payments.orders).register(in: &router)
        ProviderReportsHandlers(database: database, settings: settings, logger: logger).register(in: &router)
        ShiftsHandlers(database: database).register(in: &router)
        CustomersHandlers(database: database, catalog: payments.catalog).register(in: &router)
        CardsHandlers(database: database, catalog: payments.catalog).register(in: &router)
        CustomerDevicesHandlers(database: database, catalog: payments.catalog).register(in: &router)
        LedgerHandlers(
            database: database, ledger: LedgerRepository(), catalog: payments.catalog, hold: settings.ledgerHold
        )
        .register(in: &router)
        let sweep = DueSweep("payments", every: expirySweepInterval, logger: logger) {
            try await payments.expireDue(limit: $0)
        }
        return ServiceParts(
            router: router,
            consumers: [
                environment.follow(StaffRosterFollower(database: database, shifts: payments.shifts)),
                environment.follow(OrderMoneyFollower(database: database, catalog: payments.catalog, logger: logger)),
                environment.follow(
                    LedgerFollower(database: database, payments: payments.payments, stats: payments.stats)),
                sweep,
            ],
            housekeeping: housekeeping(database, settings: settings))
    }

    /// Deletes the providers' reports older than the settings keep them.
    static func housekeeping(_ database: Database, settings: PaymentsSettings) -> [Housekeeping.Job] {
        [
            Housekeeping.Job("provider reports") {
                try await database.deleteRows(
                    of: "provider_events", where: "received_at", olderThan: settings.providerEventsRetention)
            }
        ]
    }
}
