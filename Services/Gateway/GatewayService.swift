import Contracts
import Domain
import Events
import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
import Mail
import NIOCore
import NIOSSL
import Redis
import Runtime
public import ServiceLifecycle
public import Storage
import Wire

/// The gateway: the public HTTP API, identity (users, logins, tokens), long-polls and event
/// streams.
public enum GatewayService {
    public static let name = GatewayAPI.service
    public static let adminPort = 9200
    /// The services it calls, with their default addresses.
    public static let upstreams = [
        OrdersAPI.service: "127.0.0.1:7201", CatalogAPI.service: "127.0.0.1:7202",
        PaymentsAPI.service: "127.0.0.1:7203", NotificationsAPI.service: "127.0.0.1:7204",
    ]
    /// The schema, applied at start before anything is served.
    public static let migrations = GatewaySchema.migrations

    /// The process's parts, ready for `ServiceRunner`. `onListening` hears the HTTP address.
    public static func services(
        settings: GatewaySettings, logger: Logger, onListening: @escaping @Sendable (String) async -> Void = { _ in }
    ) async throws -> [any Service] {
        let host = try await ServiceHost.start(settings: settings.service, logger: logger, migrations: migrations)
        let hub = WakeHub()
        let sessions = Sessions(users: UsersRepository(database: host.database), redis: host.redis, logger: logger)
        let mail = MailOutbox(database: host.database)
        let mailDoorbell = Doorbell()
        let router = try await router(
            settings: settings, environment: host.environment, wakeHub: hub, sessions: sessions,
            mailDoorbell: mailDoorbell)
        let sender = MailSender(
            outbox: mail, transport: mailTransport(settings), doorbell: mailDoorbell, logger: logger)
        MetricsExporter.collect { await MailSender.collectFigures(of: mail, logger: logger) }
        if settings.smtp == nil {
            logger.warning(
                "no ORDERLY_SMTP_URL: e-mail is written to the log with its link instead of being sent; set it wherever logs are kept"
            )
        }
        let limit = ConnectionLimit(maximum: settings.maximumConnections, logger: logger)
        let app = Application(
            router: router,
            server: .http1(
                configuration: HTTP1Channel.Configuration(
                    additionalChannelHandlers: [limit.handler()],
                    idleTimeout: .seconds(Int64(settings.idleTimeout.components.seconds)))),
            configuration: ApplicationConfiguration(
                address: .hostname(settings.httpHost, port: settings.httpPort), serverName: "orderly"),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { await onListening("http://\(settings.httpHost):\(port)") }
            },
            logger: logger)
        let listeners = listeners(hub: hub, sessions: sessions, redis: settings.service.redis, logger: logger)
        // The hub after the server: at shutdown it closes first, ending the streams the server
        // would otherwise wait for.
        return host.services(
            router: nil, parts: listeners + [app, hub, sender], housekeeping: housekeeping(host.database))
    }

    /// Where mail goes: the configured SMTP server (trusting `ORDERLY_SMTP_CA_FILE` when set), or
    /// the log.
    static func mailTransport(_ settings: GatewaySettings) -> MailSender.Transport {
        guard let smtp = settings.smtp else { return .log }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = settings.smtpTrustRoots { tls.trustRoots = .file(roots) }
        return .smtp(SMTPClient(settings: smtp, tls: tls))
    }

    /// What the process listens to beside its HTTP server: wake-ups, and other replicas' word of
    /// ended sessions (`Sessions`).
    private static func listeners(hub: WakeHub, sessions: Sessions, redis: RedisConfiguration, logger: Logger)
        -> [any Service]
    {
        // Feeds the hub from `orderly:wake` (or each of its sharded channels); malformed
        // messages are logged and skipped.
        let wake: @Sendable (RedisMessage) async -> Void = { message in
            guard let wakeUps = try? JSONDecoder().decode([WakeUp].self, from: Data(message.payload)) else {
                return logger.warning("malformed wake-up skipped", metadata: ["redis.channel": "\(message.channel)"])
            }
            await hub.wake(wakeUps.compactMap(\.userID), couriers: wakeUps.contains { $0.couriersOnDuty == true })
        }
        let wakeUps: [any Service] =
            redis.streamShards > 1
            ? shardedChannels(of: WakeUp.channel, shards: redis.streamShards).map {
                ChannelListener(redis: redis, channel: $0, sharded: true, handle: wake)
            }
            : [ChannelListener(redis: redis, channel: WakeUp.channel, handle: wake)]
        return wakeUps + [
            ChannelListener(redis: redis, channel: Sessions.channel) { message in
                sessions.heard(message, logger: logger)
            }
        ]
    }

    /// The gateway's clean-ups beside every service's: refresh tokens of expired families, the
    /// sessions ended alone once their access tokens have expired,
    /// password-reset and e-mail verification tokens a day after they expired, and sent or dead
    /// mail after 30 days.
    public static func housekeeping(_ database: Database) -> [Housekeeping.Job] {
        let refreshTokens = RefreshTokensRepository(database: database)
        let resets = PasswordResetsRepository(database: database)
        let verifications = EmailVerificationsRepository(database: database)
        let mail = MailOutbox(database: database)
        return [
            Housekeeping.Job("refresh tokens") { try await refreshTokens.removeExpiredRefreshTokens() },
            Housekeeping.Job("ended sessions") { try await refreshTokens.removeEndedSessions() },
            Housekeeping.Job("password resets") { try await resets.removeExpired() },
            Housekeeping.Job("e-mail verifications") { try await verifications.removeExpired() },
            Housekeeping.Job("mail") { try await mail.removeFinished(olderThan: .seconds(30 * 86_400)) },
        ]
    }

    /// The HTTP routes over `environment` (the gateway's database, Redis, and callers of the
    /// four services), releasing long-polls through `wakeHub` and checking tokens against
    /// `sessions` (made here when nil): what the process serves, and what tests drive
    /// in-process. Makes the bootstrap admin when no admin is active.
    static func router(
        settings: GatewaySettings, environment: ServiceEnvironment, wakeHub: WakeHub, sessions: Sessions? = nil,
        passwords: PasswordHasher? = nil, mailDoorbell: Doorbell = Doorbell()
    ) async throws -> Router<GatewayContext> {
        let passwords = passwords ?? PasswordHasher(cost: settings.bcryptCost)
        let (database, logger) = (environment.database, environment.logger)
        let sessions =
            sessions ?? Sessions(users: UsersRepository(database: database), redis: environment.redis, logger: logger)
        let upstream = environment.upstream
        let tokens = await TokenIssuer.make(
            secret: settings.jwtSecret, accessLifetime: settings.accessTokenLifetime,
            refreshLifetime: settings.refreshTokenLifetime)
        let users = UsersRepository(database: database)
        let limiter = LoginLimiter(
            redis: environment.redis, perAccount: settings.loginAttemptsPerAccount,
            perAddress: settings.loginAttemptsPerAddress, window: .seconds(300), logger: logger)
        let (mail, texts) = (MailOutbox(database: database), try MailTexts.bundled())
        let verifications = EmailVerificationHandlers(
            database: database, verifications: EmailVerificationsRepository(database: database), users: users,
            applications: ApplicationsRepository(database: database), limiter: limiter, mail: mail, texts: texts,
            doorbell: mailDoorbell, publicURL: settings.publicURL,
            perAccountPerHour: settings.verificationMailsPerAccountPerHour, logger: logger)
        let identity = UsersHandlers(
            database: database, users: users, passwords: passwords, limiter: limiter,
            passwordChangesPerHour: settings.passwordChangesPerHour, catalog: try upstream(CatalogAPI.service),
            idempotency: IdempotencyStore(database: database), sessions: sessions,
            bootstrapEmail: settings.bootstrapAdminEmail, verifications: verifications)
        let applications = ApplicationsHandlers(
            database: database, applications: ApplicationsRepository(database: database), users: users,
            passwords: passwords, limiter: limiter, applicationsPerAddressPerHour: settings.signUpsPerAddressPerHour,
            catalog: try upstream(CatalogAPI.service), verifications: verifications)
        let ownSessions = SessionHandlers(
            database: database, refreshTokens: RefreshTokensRepository(database: database), sessions: sessions,
            accessLifetime: settings.accessTokenLifetime)
        let auth = AuthHandlers(
            database: database, users: users, refreshTokens: RefreshTokensRepository(database: database),
            tokens: tokens, passwords: passwords, limiter: limiter,
            signUpsPerAddressPerHour: settings.signUpsPerAddressPerHour, identity: identity,
            applications: applications, sessions: ownSessions, logger: logger)
        let resets = PasswordResetHandlers(
            database: database, users: users, resets: PasswordResetsRepository(database: database),
            passwords: passwords, limiter: limiter, sessions: sessions, mail: mail,
            texts: texts, doorbell: mailDoorbell, publicURL: settings.publicURL,
            perAccountPerHour: settings.passwordResetsPerAccountPerHour,
            perAddressPerHour: settings.passwordResetsPerAddressPerHour, logger: logger)
        try await bootstrapAdmin(settings: settings, database: database, passwords: passwords, logger: logger)

        let router = Router(context: GatewayContext.self)
        router.add(middleware: HTTPMetricsMiddleware())
        let clients = ClientAddressResolver(trustedProxies: settings.trustedProxies)
        router.add(middleware: EdgeTracingMiddleware(clients: clients))
        router.add(middleware: ErrorEnvelopeMiddleware(maximumBodyBytes: settings.maximumBodyBytes, tokens: tokens))
        let methods = MethodNotAllowed()
        router.add(middleware: MethodNotAllowed.Middleware(routes: methods))
        router.add(middleware: BearerAuthentication(tokens: tokens, sessions: sessions))
        if settings.userRequestsPerSecond > 0 {
            router.add(
                middleware: UserRateLimitMiddleware(
                    limit: RateLimit(perSecond: settings.userRequestsPerSecond, burst: settings.userBurst)))
        }
        if settings.anonymousRequestsPerSecond > 0 {
            router.add(
                middleware: AnonymousRateLimitMiddleware(
                    limit: RateLimit(perSecond: settings.anonymousRequestsPerSecond, burst: settings.anonymousBurst),
                    clients: clients))
        }
        DocumentRoutes(document: try openAPIDocument()).add(to: router)
        try ConsoleRoutes.bundled().add(to: router)
        let v1 = router.group("v1")
        AuthRoutes(auth: auth, resets: resets, verifications: verifications, clients: clients).add(to: v1)
        ApplicationRoutes(applications: applications, clients: clients).add(to: v1)
        let account = AccountHandlers(
            database: database, users: users, passwords: passwords, limiter: limiter, sessions: sessions,
            orders: try upstream(OrdersAPI.service), payments: try upstream(PaymentsAPI.service),
            notifications: try upstream(NotificationsAPI.service))
        UserRoutes(
            identity: identity, verifications: verifications, account: account, sessions: ownSessions,
            payments: try upstream(PaymentsAPI.service), clients: clients, logger: logger
        )
        .add(to: v1)
        StoreRoutes(catalog: try upstream(CatalogAPI.service)).add(to: v1)
        ProductRoutes(catalog: try upstream(CatalogAPI.service)).add(to: v1)
        let addresses = AddressesHandlers(
            database: database, addresses: AddressesRepository(), idempotency: IdempotencyStore(database: database))
        OrderRoutes(
            orders: try upstream(OrdersAPI.service), payments: try upstream(PaymentsAPI.service), identity: identity,
            addresses: addresses
        ).add(to: v1)
        PaymentRoutes(payments: try upstream(PaymentsAPI.service)).add(to: v1)
        LedgerRoutes(payments: try upstream(PaymentsAPI.service), identity: identity).add(to: v1)
        CustomerRoutes(payments: try upstream(PaymentsAPI.service), identity: identity).add(to: v1)
        NotificationRoutes(
            notifications: try upstream(NotificationsAPI.service), wakeHub: wakeHub, sessions: sessions,
            recheck: settings.longPollRecheck,
            maximumWait: settings.longPollMaximumWait, heartbeat: settings.streamHeartbeat, logger: logger
        ).add(to: v1)
        WebhookRoutes(notifications: try upstream(NotificationsAPI.service)).add(to: v1)
        AddressRoutes(addresses: addresses).add(to: v1)
        DeviceRoutes(notifications: try upstream(NotificationsAPI.service)).add(to: v1)
        let tills = TillsHandlers(
            database: database, tills: TillsRepository(database: database), users: users,
            refreshTokens: RefreshTokensRepository(database: database), tokens: tokens, passwords: passwords,
            limiter: limiter, passwordChangesPerHour: settings.passwordChangesPerHour, ownSessions: ownSessions,
            sessionLifetime: settings.tillSessionLifetime,
            catalog: try upstream(CatalogAPI.service))
        TillRoutes(tills: tills, clients: clients).add(to: v1)
        methods.load(from: router)
        return router
    }

    /// Makes the bootstrap admin when no admin is active, with the configured password. Without
    /// one, a password is generated only when standard error is a terminal (a gateway started by
    /// hand), and shown there once; where the output is kept (a container's log, a file) whoever reads it
    /// would have an admin's password, so no admin is made and a warning says what to set.
    private static func bootstrapAdmin(
        settings: GatewaySettings, database: Database, passwords: PasswordHasher, logger: Logger
    ) async throws {
        let generated =
            settings.bootstrapAdminPassword == nil && isatty(STDERR_FILENO) == 1
            ? TokenIssuer.randomToken().prefix(20).description : nil
        let email = settings.bootstrapAdminEmail
        let outcome = try await UserBook(database: database).bootstrapAdmin(
            email: email, password: settings.bootstrapAdminPassword ?? generated, passwords: passwords)
        switch outcome {
        case .notNeeded:
            break
        case .created, .reactivated:
            if let generated {
                FileHandle.standardError.write(
                    Data("bootstrap admin ready: \(email) with password \(generated) (shown once)\n".utf8))
            }
            logger.notice(
                "no admin was active: bootstrap admin \(outcome == .created ? "created" : "active again")",
                metadata: ["user.email": "\(email)"])
        case .waitingForPassword:
            logger.warning(
                "no admin is active: set ORDERLY_BOOTSTRAP_ADMIN_PASSWORD to make one (a generated password is shown on a terminal only, never where output is kept)"
            )
        case .addressTaken(let role):
            logger.error(
                "no admin is active, and ORDERLY_BOOTSTRAP_ADMIN_EMAIL is a \(role.rawValue)'s account: set another address to make one",
                metadata: ["user.email": "\(email)"])
        }
    }

    /// The OpenAPI document served at `/openapi.yaml`.
    public static func openAPIDocument() throws -> ByteBuffer {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw OrderlyError(.internal, "openapi.yaml is missing from the gateway's resources")
        }
        return ByteBuffer(bytes: try Data(contentsOf: url))
    }
}
