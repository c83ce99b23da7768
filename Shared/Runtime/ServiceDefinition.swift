import Domain
public import Logging
import Redis
public import ServiceLifecycle
public import Storage
import Wire
public import WireContract

/// A service as its process and the tests see it: its name and default ports, the services it
/// calls, its schema, and its parts over an environment. `ServiceMain.run(_:)` runs one.
public protocol ServiceDefinition {
    /// The name it serves Wire under, scopes its migrations by and publishes its events as.
    static var name: String { get }
    static var wirePort: Int { get }
    static var adminPort: Int { get }
    /// The services it calls, with their default addresses.
    static var upstreams: [String: String] { get }
    /// Its schema, applied at start before anything is served.
    static var migrations: [Migration] { get }
    /// Its Wire methods and event consumers over `environment`.
    static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts
    /// Which services may call which of its methods (`WireCallers`).
    static var callers: WireCallers { get }
}

extension ServiceDefinition {
    public static var upstreams: [String: String] { [:] }

    /// The process's parts, ready for `ServiceRunner`: the database opened and migrated, then
    /// the service's parts with the outbox relay, the Wire server and the admin server around.
    public static func services(
        settings: ServiceSettings, configuration: ConfigurationSource = .fixed([:]), logger: Logger
    ) async throws -> [any Service] {
        let host = try await ServiceHost.start(
            settings: settings, configuration: configuration, logger: logger, migrations: migrations)
        var parts = try parts(host.environment)
        parts.router.callers = callers
        return host.services(parts)
    }
}
