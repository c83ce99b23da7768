public import Domain
public import Logging
public import Redis
public import ServiceLifecycle
public import Storage
public import Wire
public import WireContract

/// What a service's parts are built over, in its process (`ServiceHost.environment`) or in a
/// test: its name, its database, Redis, this replica's name, the callers of the services it
/// calls, and a logger.
public struct ServiceEnvironment: Sendable {
    /// The service's name: the consumer group its followers read in.
    public var service: String
    public var database: Database
    /// For commands (publishing, wake-ups); each event consumer gets a client of its own.
    public var redis: RedisClient
    /// This replica's name, unique among the service's replicas (consumer names).
    public var instance: String
    /// The services it calls, by name.
    public var upstreams: [String: any WireCaller]
    public var logger: Logger
    /// Where the settings a service reads for itself come from (the payments service's
    /// providers), beyond what every service reads (`ServiceSettings`).
    public var configuration: ConfigurationSource

    public init(
        service: String, database: Database, redis: RedisClient, instance: String,
        upstreams: [String: any WireCaller] = [:], logger: Logger, configuration: ConfigurationSource = .fixed([:])
    ) {
        self.service = service
        self.database = database
        self.redis = redis
        self.instance = instance
        self.upstreams = upstreams
        self.logger = logger
        self.configuration = configuration
    }

    /// The caller of upstream `service`; an error when it was not given.
    public func upstream(_ service: String) throws(OrderlyError) -> any WireCaller {
        guard let caller = upstreams[service] else { throw OrderlyError(.internal, "\(service) is not an upstream") }
        return caller
    }

    /// A Redis client for one blocking stream consumer, its thread to itself.
    public func consumerRedis() -> RedisClient {
        var configuration = redis.configuration
        configuration.poolSize = 1
        return RedisClient(configuration: configuration)
    }
}

/// A service without a process around it: the Wire methods it answers, the followers of the
/// event streams it reacts to (`ServiceEnvironment.follow(_:)`) and its other long-running
/// parts (sweeps, senders). Its process adds the outbox relay, the Wire and admin servers.
public struct ServiceParts: Sendable {
    public var router: WireRouter
    public var consumers: [any Service]
    /// Clean-ups of its own tables, beside those every service runs (`Housekeeping`).
    public var housekeeping: [Housekeeping.Job]

    public init(router: WireRouter, consumers: [any Service] = [], housekeeping: [Housekeeping.Job] = []) {
        self.router = router
        self.consumers = consumers
        self.housekeeping = housekeeping
    }
}

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
