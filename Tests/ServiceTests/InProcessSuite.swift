import Catalog
import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Notifications
import Orders
import Payments
import Redis
import Runtime
import ServiceLifecycle
import Storage
import TestSupport
import Testing
import Wire

@testable import Gateway

/// The five services in this process, each over a database of its own (new SQLite files, or new
/// PostgreSQL databases), calling each other through their routers, with their outbox relays
/// and event consumers on a throwaway Redis: the whole of Orderly without a process or a port,
/// driven through the gateway's routes. Rules are tested here; `RunningSuite` is for flows.
final class InProcessSuite: Suite {
    let adminEmail = "admin@example.com"
    let adminPassword = "admin-password-1"
    let catalog: WireRouter
    let orders: WireRouter
    let payments: WireRouter
    let notifications: WireRouter
    /// What the notifications service does with the events it consumes.
    let notifier: Notifier
    /// The payments service's database, for checks that read behind its methods.
    let paymentsDatabase: Database
    /// The orders service's database, to move a due time into the past.
    let ordersDatabase: Database
    /// The gateway's database and the suite's Redis, for what operators do beside the API.
    let gatewayDatabase: Database
    let redis: RedisClient
    /// The gateway's password hasher: how many bcrypt runs requests cost.
    let passwords: PasswordHasher
    private let client: any TestClientProtocol

    private init(
        catalog: WireRouter, orders: WireRouter, payments: WireRouter, notifications: WireRouter,
        notifier: Notifier, paymentsDatabase: Database, ordersDatabase: Database, gatewayDatabase: Database,
        redis: RedisClient, passwords: PasswordHasher, client: any TestClientProtocol
    ) {
        self.paymentsDatabase = paymentsDatabase
        self.ordersDatabase = ordersDatabase
        self.gatewayDatabase = gatewayDatabase
        self.redis = redis
        self.passwords = passwords
        self.catalog = catalog
        self.orders = orders
        self.payments = payments
        self.notifications = notifications
        self.notifier = notifier
        self.client = client
    }

    func request(_ method: String, _ path: String, headers: [String: String], body: Data?) async throws -> Reply {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        let response = try await client.executeRequest(
            uri: path, method: HTTPRequest.Method(rawValue: method)!, headers: fields,
            body: body.map { ByteBuffer(bytes: $0) })
        var replyHeaders: [String: String] = [:]
        for field in response.headers { replyHeaders[field.name.canonicalName] = field.value }
        return Reply(status: response.status.code, headers: replyHeaders, body: Data(response.body.readableBytesView))
    }

    static let services = ["catalog", "orders", "payments", "notifications", "gateway"]
    /// The payment providers the suite's payments service accepts, by name, with their secrets.
    static let providers = ["acme-pay": "acme-pay-secret-0123456789", "other-pay": "other-pay-secret-0123456789"]
    static var providerSecrets: String { providers.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }

    /// Settings every service reads besides the defaults: the payment providers, webhooks that
    /// may go to this machine over plain http and are retried within moments, and what stores
    /// and couriers earn available to pay out at once (the hold has a test of its own).
    static let settings = [
        "payment.provider.secrets": providerSecrets, "webhooks.allowedNetworks": "127.0.0.0/8",
        "ledger.holdHours": "0",
        "webhooks.plainHttp": "allowed",
        "webhooks.retryBaseMilliseconds": "100", "push.bundleIds": "com.example.store",
    ]

    /// Runs `body` against a new suite on `kind` databases, with `settings` over the usual ones,
    /// removing everything afterwards. The orders service calls the catalog through
    /// `ordersCatalog` (a test's faults between the two).
    static func with(
        on kind: Database.Kind = .sqlite, settings: [String: String] = [:],
        ordersCatalog: @Sendable (any WireCaller) -> any WireCaller = { $0 },
        _ body: @Sendable (InProcessSuite) async throws -> Void
    ) async throws {
        var logger = Logger(label: "orderly.tests.in-process")
        logger.logLevel = .warning
        let redisServer = try await RedisServerProcess.start()
        var databases: [String: TestDatabase] = [:]
        let redis = RedisClient(configuration: redisServer.configuration)
        do {
            for name in services { databases[name] = try await TestDatabase.open(kind) }
            try await databases["catalog"]!.database.migrate(scope: "catalog", CatalogService.migrations)
            try await databases["orders"]!.database.migrate(scope: "orders", OrdersService.migrations)
            try await databases["payments"]!.database.migrate(scope: "payments", PaymentsService.migrations)
            try await databases["notifications"]!.database.migrate(
                scope: "notifications", NotificationsService.migrations)
            try await databases["gateway"]!.database.migrate(scope: "gateway", GatewayService.migrations)
            func environment(_ name: String, upstreams: [String: any WireCaller] = [:]) -> ServiceEnvironment {
                ServiceEnvironment(
                    service: name, database: databases[name]!.database, redis: redis, instance: "tests",
                    upstreams: upstreams,
                    logger: logger, configuration: .fixed(Self.settings.merging(settings) { $1 }))
            }
            // Each service calls the others as itself, so that their grants apply as between processes.
            let catalog = try CatalogService.parts(environment("catalog"))
            let orders = try OrdersService.parts(
                environment(
                    "orders", upstreams: ["catalog": ordersCatalog(catalog.router.caller(as: OrdersService.name))]))
            let payments = try PaymentsService.parts(
                environment(
                    "payments",
                    upstreams: [
                        "catalog": catalog.router.caller(as: PaymentsService.name),
                        "orders": orders.router.caller(as: PaymentsService.name),
                    ]))
            let notifications = try NotificationsService.parts(environment("notifications"))
            let gateway = GatewayAPI.service
            let gatewayEnvironment = environment(
                "gateway",
                upstreams: [
                    "catalog": catalog.router.caller(as: gateway), "orders": orders.router.caller(as: gateway),
                    "payments": payments.router.caller(as: gateway),
                    "notifications": notifications.router.caller(as: gateway),
                ])
            let gatewaySettings = try gatewaySettings(settings)
            let passwords = PasswordHasher(cost: gatewaySettings.bcryptCost)
            let router = try await GatewayService.router(
                settings: gatewaySettings, environment: gatewayEnvironment, wakeHub: WakeHub(), passwords: passwords)
            let relays: [any Service] = ["catalog", "orders", "payments", "gateway"].map { name in
                OutboxRelay(
                    database: databases[name]!.database, publisher: EventPublisher(redis: redis, service: name),
                    configuration: OutboxRelayConfiguration(pollInterval: .milliseconds(100)), logger: logger)
            }
            let notifier = NotificationsService.notifier(environment("notifications"))
            let paymentsDatabase = databases["payments"]!.database
            let ordersDatabase = databases["orders"]!.database
            let gatewayDatabase = databases["gateway"]!.database
            let app = Application(
                router: router,
                services: relays + catalog.consumers + orders.consumers + payments.consumers + notifications.consumers,
                logger: logger)
            try await app.test(.router) { client in
                try await body(
                    InProcessSuite(
                        catalog: catalog.router, orders: orders.router, payments: payments.router,
                        notifications: notifications.router,
                        notifier: notifier, paymentsDatabase: paymentsDatabase,
                        ordersDatabase: ordersDatabase, gatewayDatabase: gatewayDatabase, redis: redis,
                        passwords: passwords,
                        client: client))
            }
        } catch {
            await tearDown(databases, redis, redisServer)
            throw error
        }
        await tearDown(databases, redis, redisServer)
    }

    private static func tearDown(
        _ databases: [String: TestDatabase], _ redis: RedisClient, _ server: RedisServerProcess
    ) async {
        for database in databases.values { await database.remove() }
        await redis.shutdown()
        await server.stop()
    }

    /// The gateway's settings for tests: cheap password hashes, many logins and other requests
    /// from one address, with `overrides` over them.
    static func gatewaySettings(_ overrides: [String: String] = [:]) throws -> GatewaySettings {
        let source = ConfigurationSource.fixed(
            [
                "internal.secret": "internal-secret-for-tests-0123456789",
                "jwt.secret": "jwt-secret-for-tests-0123456789abcdef",
                "bootstrap.admin.email": "admin@example.com", "bootstrap.admin.password": "admin-password-1",
                "auth.bcryptCost": "4", "auth.loginAttemptsPerAddress": "10000",
                "http.userRequestsPerSecond": "1000", "http.userBurst": "10000",
                "http.anonymousRequestsPerSecond": "1000", "http.anonymousBurst": "10000",
                "auth.signUpsPerAddressPerHour": "100000",
            ].merging(overrides) { $1 })
        let service = try ServiceSettings.read(
            service: "gateway", defaultWirePort: 0, defaultAdminPort: 0, upstreams: [:], from: source)
        return try GatewaySettings.read(service: service, from: source)
    }
}
