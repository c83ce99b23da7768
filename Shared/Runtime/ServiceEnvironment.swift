public import Domain
public import Logging
public import Redis
import ServiceLifecycle
public import Storage
public import Wire
import WireContract

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
