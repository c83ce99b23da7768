internal import Contracts
public import Logging
public import Runtime
public import ServiceLifecycle
public import Storage
internal import Wire

/// The catalog service: stores, the tenants' profiles with their money and tax settings.
public enum CatalogService {
    public static let name = CatalogAPI.service
    public static let wirePort = 7202
    public static let adminPort = 9202
    /// The schema, applied at start before anything is served.
    public static let migrations = CatalogSchema.migrations

    /// The process's parts, ready for `ServiceRunner`.
    public static func services(settings: ServiceSettings, logger: Logger) async throws -> [any Service] {
        let host = try await ServiceHost.start(settings: settings, logger: logger, migrations: migrations)
        return host.services(try parts(host.environment))
    }

    /// The service over `environment`: what the process runs, and what tests run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        var router = WireRouter()
        CatalogHandlers(database: environment.database).register(in: &router)
        return ServiceParts(router: router, consumers: CatalogEvents.consumers(environment))
    }
}
