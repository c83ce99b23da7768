import Foundation
public import Logging
import Metrics
import NIOCore
import NIOPosix
public import Redis
import SQLKit
public import ServiceLifecycle
public import Storage
public import Wire

/// What every service process has: its settings, its database (migrated), Redis, the event
/// publisher its outbox relay uses, and the clients of its upstreams.
public struct ServiceHost: Sendable {
    public let settings: ServiceSettings
    public let logger: Logger
    public let database: Database
    /// For commands and publishing; event consumers get clients of their own.
    public let redis: RedisClient
    public let publisher: EventPublisher
    public let upstreams: [String: WireClient]
    /// Where the service's own settings come from (`ServiceEnvironment.configuration`).
    public let configuration: ConfigurationSource

    /// Opens the database and applies the service's migrations before anything is served.
    /// The outbox relay publishes to `orderly:events:<service>`.
    public static func start(
        settings: ServiceSettings, configuration: ConfigurationSource = .fixed([:]), logger: Logger,
        migrations: [Migration]
    ) async throws -> ServiceHost {
        let database = try await Database.open(settings.database, logger: logger)
        let applied = try await database.migrate(scope: settings.process.service, migrations)
        if !applied.isEmpty {
            logger.info(
                "database migrated", metadata: ["db.migrations": "\(applied.map(String.init).joined(separator: ","))"])
        }
        let redis = RedisClient(configuration: settings.redis)
        var upstreams: [String: WireClient] = [:]
        for name in settings.upstreams.keys { upstreams[name] = settings.client(for: name, logger: logger) }
        return ServiceHost(
            settings: settings, logger: logger, database: database, redis: redis,
            publisher: EventPublisher(redis: redis, service: settings.process.service), upstreams: upstreams,
            configuration: configuration)
    }

    /// What the service's parts are built over.
    public var environment: ServiceEnvironment {
        ServiceEnvironment(
            service: settings.process.service, database: database, redis: redis, instance: settings.instance,
            upstreams: upstreams.mapValues { $0 as any WireCaller }, logger: logger, configuration: configuration)
    }

    /// What `/readyz` checks: the database (required), Redis (ridden out: events wait in the
    /// outbox, wake-ups fall back to polling) and each upstream (reachable at all: any replica).
    public var readinessChecks: [ReadinessCheck] {
        let database = self.database
        let redis = self.redis
        var checks = [
            ReadinessCheck("database") { try await database.read { _ = try await $0.raw("SELECT 1 AS one").all() } },
            ReadinessCheck("redis", .riddenOut) { try await redis.send("PING") },
        ]
        for (name, client) in upstreams {
            checks.append(ReadinessCheck(name, .upstream) { try await client.ping() })
        }
        return checks
    }

    /// The process's parts in start order: closing the database and Redis last, the outbox
    /// relay, housekeeping, the service's consumers, its Wire server, and the admin server,
    /// which stops first on SIGTERM.
    public func services(_ parts: ServiceParts) -> [any Service] {
        services(router: parts.router, parts: parts.consumers, housekeeping: parts.housekeeping)
    }

    /// The same for a process that serves no Wire methods (`router` nil) or runs more `parts`.
    public func services(router: WireRouter?, parts: [any Service], housekeeping: [Housekeeping.Job] = [])
        -> [any Service]
    {
        let closer = ResourceCloser { [database, redis, upstreams] in
            for client in upstreams.values { await client.close() }
            await database.close()
            await redis.shutdown()
        }
        let relay = OutboxRelay(database: database, publisher: publisher, logger: logger)
        let pipeline = PipelineMetrics(
            relay: relay, redis: redis, sources: parts.flatMap(Self.sources(of:)), logger: logger)
        MetricsExporter.collect { await pipeline.collect() }
        Self.recordCertificateExpiries(settings)
        let checks = readinessChecks
        let ownChecks = checks.filter { $0.effect != .upstream }
        MetricsExporter.collect { await AdminServer.recordDependencies(ownChecks) }
        let housekeeping = Housekeeping(
            jobs: Housekeeping.standardJobs(database: database) + housekeeping, logger: logger)
        var services: [any Service] = [closer, relay, housekeeping] + parts
        if let tls = settings.process.wireTLS {
            let settings = self.settings
            services.append(
                WireTLSReloader(tls: tls, interval: .seconds(60), logger: logger) {
                    Self.recordCertificateExpiries(settings)
                })
        }
        if let router {
            services.append(WireServer(configuration: settings.process.wireServer, router: router, logger: logger))
        }
        services.append(
            AdminServer(
                host: settings.process.adminHost, port: settings.process.adminPort,
                checks: checks, logger: logger))
        return services
    }

    /// `orderly_certificate_expiry_timestamp_seconds{certificate}`: when this process's Wire
    /// certificate, its Wire authority and the authorities it trusts for PostgreSQL
    /// (`sslrootcert`) stop being valid, for `OrderlyCertificateExpiring`.
    static func recordCertificateExpiries(_ settings: ServiceSettings) {
        var expiries: [(String, Date)] = []
        if let tls = settings.process.wireTLS {
            expiries += [("wire", tls.certificateExpiry), ("wire_authority", tls.authorityExpiry)]
        }
        if case .postgres(let database) = settings.database, let roots = database.rootCertificates,
            let expiry = WireTLS.expiry(ofPEMFile: roots)
        {
            expiries.append(("database_authority", expiry))
        }
        for (certificate, expiry) in expiries {
            Gauge(label: "orderly_certificate_expiry_timestamp_seconds", dimensions: [("certificate", certificate)])
                .record(expiry.timeIntervalSince1970)
        }
    }

    /// The streams and groups a part of the process consumes, for the pipeline's metrics.
    static func sources(of part: any Service) -> [(stream: String, group: String)] {
        if let consumer = part as? EventConsumer { return [consumer.source] }
        if let shards = part as? ShardConsumers { return shards.consumers.map(\.source) }
        return []
    }
}
