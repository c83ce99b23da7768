internal import Contracts
internal import Domain
internal import Foundation
public import Hummingbird
public import Logging
internal import NIOCore
internal import Runtime
public import ServiceLifecycle
internal import Storage
internal import Wire

/// The gateway: the public HTTP API, identity (users, logins, tokens), and long-polls.
public enum GatewayService {
    public static let name = "gateway"
    public static let adminPort = 9200
    /// The services it calls, with their default addresses.
    public static let upstreams = [
        OrdersAPI.service: "127.0.0.1:7201", CatalogAPI.service: "127.0.0.1:7202",
        PaymentsAPI.service: "127.0.0.1:7203", NotificationsAPI.service: "127.0.0.1:7204",
    ]

    /// The process's parts, ready for `ServiceRunner`. `onListening` hears the HTTP address.
    public static func services(
        settings: GatewaySettings, logger: Logger, onListening: @escaping @Sendable (String) async -> Void = { _ in }
    ) async throws -> [any Service] {
        let host = try await ServiceHost.start(
            settings: settings.service, logger: logger, migrations: IdentitySchema.migrations,
            events: IdentityEvents.service)
        let database = host.database
        let tokens = await TokenIssuer.make(
            secret: settings.jwtSecret, database: database, accessLifetime: settings.accessTokenLifetime,
            refreshLifetime: settings.refreshTokenLifetime)
        let identity = IdentityService(
            database: database, users: UserRepository(database: database), tokens: tokens,
            passwords: PasswordHasher(cost: settings.bcryptCost),
            limiter: LoginLimiter(
                redis: host.redis, perAccount: settings.loginAttemptsPerAccount,
                perAddress: settings.loginAttemptsPerAddress, window: .seconds(300), logger: logger),
            catalog: host.upstream(CatalogAPI.service), idempotency: IdempotencyStore(database: database),
            logger: logger)
        if let created = try await identity.bootstrapAdmin(
            email: settings.bootstrapAdminEmail, password: settings.bootstrapAdminPassword)
        {
            if let generated = created.generated {
                // Printed once, on the terminal, never logged: the operator notes it and changes it.
                FileHandle.standardError.write(
                    Data("bootstrap admin created: \(created.email) with password \(generated) (shown once)\n".utf8))
            } else {
                logger.notice("bootstrap admin created", metadata: ["user.email": "\(created.email)"])
            }
        }
        let hub = WakeHub()
        let api = GatewayAPI(
            identity: identity, orders: host.upstream(OrdersAPI.service),
            catalog: host.upstream(CatalogAPI.service), payments: host.upstream(PaymentsAPI.service),
            notifications: host.upstream(NotificationsAPI.service), wakeHub: hub,
            maximumBodyBytes: settings.maximumBodyBytes, longPollRecheck: settings.longPollRecheck,
            openAPIDocument: try openAPIDocument())
        let router = Router(context: GatewayContext.self)
        router.add(middleware: ErrorEnvelopeMiddleware())
        router.add(middleware: MetricsMiddleware())
        AdminServer.addRoutes(to: router, checks: host.readinessChecks)
        api.addRoutes(to: router)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(settings.httpHost, port: settings.httpPort), serverName: "orderly"),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { await onListening("http://\(settings.httpHost):\(port)") }
            },
            logger: logger)
        let listener = WakeListener(hub: hub, redis: settings.service.redis, logger: logger)
        return host.services(router: nil, parts: [listener, app])
    }

    /// The OpenAPI document served at `/openapi.yaml`.
    public static func openAPIDocument() throws -> ByteBuffer {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw OrderlyError(.internal, "openapi.yaml is missing from the gateway's resources")
        }
        return ByteBuffer(bytes: try Data(contentsOf: url))
    }
}
