import Contracts
public import Runtime
public import Storage
public import Wire

/// The notifications service: turns the other services' events into notifications in each
/// user's inbox, and announces each one on `orderly:wake` so a waiting long-poll or stream
/// answers at once; and sends stores' events to their webhooks.
public enum NotificationsService: ServiceDefinition {
    public static let name = NotificationsAPI.service
    public static let wirePort = 7204
    public static let adminPort = 9204
    /// The schema, applied at start before anything is served.
    public static let migrations = NotificationsSchema.migrations
    /// Only the gateway calls it.
    public static let callers = WireCallers([GatewayCaller.service: WireCallers.everything])

    /// The service over `environment`: what the process runs, and what tests run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        let settings = try WebhookSettings.read(from: environment.configuration)
        let doorbell = Doorbell()
        let events = events(environment, doorbell: doorbell)
        var router = WireRouter()
        NotificationsHandlers(database: environment.database).register(in: &router)
        WebhookHandlers(
            webhooks: events.webhooks, destinations: WebhookDestinations(allowed: settings.allowedNetworks),
            doorbell: doorbell
        ).register(in: &router)
        let dispatcher = WebhookDispatcher(
            webhooks: events.webhooks, settings: settings, doorbell: doorbell,
            disable: { try await events.disableWebhook($0, reason: $1) }, logger: environment.logger)
        return ServiceParts(router: router, consumers: events.consumers(environment) + [dispatcher])
    }

    /// What the service does with the events it consumes: what its consumers run, and what
    /// tests apply in-process.
    public static func events(_ environment: ServiceEnvironment, doorbell: Doorbell = Doorbell())
        -> NotificationsEvents
    {
        NotificationsEvents(
            database: environment.database, redis: environment.redis, doorbell: doorbell, logger: environment.logger)
    }
}
