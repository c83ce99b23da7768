import Domain
import Foundation
public import Logging
public import Redis
public import Storage
public import Wire

/// What a service process reads besides `ProcessSettings`: where its data lives, its
/// database, Redis, and the addresses of the services it calls.
///
/// | key | variable | default |
/// |---|---|---|
/// | `data.dir` | `ORDERLY_DATA_DIR` | `./.orderly` |
/// | `database.url` | `ORDERLY_DATABASE_URL` | `sqlite:<data dir>/<service>.sqlite` |
/// | `redis.url` | `ORDERLY_REDIS_URL` | `redis://127.0.0.1:6379` (`redis-cluster://host:port[,…]` for a cluster) |
/// | `redis.stream_shards` | `ORDERLY_REDIS_STREAM_SHARDS` | 1: streams per service, and wake-up channels |
///
/// A database or Redis URL with a password is read from the environment only.
/// | `instance` | `ORDERLY_INSTANCE` | `<host name>-<admin port>` |
/// | `<upstream>.address` | `ORDERLY_<UPSTREAM>_ADDRESS` | per upstream, `host:port[,host:port…]` |
public struct ServiceSettings: Sendable {
    public var process: ProcessSettings
    public var dataDirectory: String
    public var database: DatabaseLocation
    public var redis: RedisConfiguration
    /// This replica's name, unique among the service's replicas (consumer names).
    public var instance: String
    /// Addresses of the services this one calls, by service name.
    public var upstreams: [String: [WireEndpoint]]

    /// Reads every setting, reporting all problems at once.
    public static func read(
        service: String, defaultWirePort: Int, defaultAdminPort: Int, upstreams: [String: String],
        from source: ConfigurationSource
    ) throws(ConfigurationError) -> ServiceSettings {
        var problems: [String] = []
        var process: ProcessSettings?
        do {
            process = try ProcessSettings.read(
                service: service, defaultWirePort: defaultWirePort, defaultAdminPort: defaultAdminPort, from: source)
        } catch {
            problems += error.problems
        }
        var reader = source.settings()
        let dataDirectory = reader.string("data.dir", default: "./.orderly")
        let databaseURL = reader.urlWithCredentials(
            "database.url", default: "sqlite:\(dataDirectory)/\(service).sqlite")
        var database: DatabaseLocation?
        do {
            database = try DatabaseLocation(url: databaseURL)
        } catch {
            reader.report("database.url", error.reason)
        }
        let redisURL = reader.urlWithCredentials("redis.url", default: "redis://127.0.0.1:6379")
        var redis = RedisConfiguration(url: redisURL)
        if redis == nil {
            reader.report(
                "redis.url",
                "expected redis://[[user]:password@]host:port[/database] or redis-cluster://[[user]:password@]host:port[,host:port…]"
            )
        }
        redis?.streamShards = reader.int("redis.stream_shards", default: 1, in: 1...1024)
        if let redis, redis.isCluster, redis.streamShards < 2 {
            // A stream's mark and dead letters share its slot only through the shards' hash tags.
            reader.report("redis.stream_shards", "at least 2 with a Redis Cluster, got \(redis.streamShards)")
        }
        // Unique among replicas without being set: a host runs one process on an admin port
        // (and a container or pod has a host name of its own); the same after a restart, so a
        // replica that comes back takes up its own consumer group again.
        let adminPort = process.map { $0.adminPort == 0 ? "pid\(getpid())" : "\($0.adminPort)" } ?? "0"
        let instance = reader.string("instance", default: "\(ProcessInfo.processInfo.hostName)-\(adminPort)")
        var endpoints: [String: [WireEndpoint]] = [:]
        for (name, defaultAddress) in upstreams {
            let key = "\(name).address"
            let text = reader.string(key, default: defaultAddress)
            let parsed = text.split(separator: ",").map { WireEndpoint(String($0).trimmingWhitespace()) }
            if parsed.isEmpty || parsed.contains(where: { $0 == nil }) {
                reader.report(key, "expected host:port[,host:port…], got '\(text)'")
            }
            endpoints[name] = parsed.compactMap { $0 }
        }
        do {
            try reader.finish()
        } catch {
            problems += error.problems
        }
        guard problems.isEmpty, let process, let database, let redis else {
            throw ConfigurationError(problems: problems)
        }
        return ServiceSettings(
            process: process, dataDirectory: dataDirectory, database: database, redis: redis, instance: instance,
            upstreams: endpoints)
    }

    /// A client for the upstream `service`, proving this service's identity with the secret.
    public func client(for service: String, logger: Logger) -> WireClient {
        WireClient(
            configuration: WireClientConfiguration(
                service: service, endpoints: upstreams[service] ?? [], callerService: process.service,
                secret: process.internalSecret, tls: process.wireTLS),
            logger: logger)
    }
}
