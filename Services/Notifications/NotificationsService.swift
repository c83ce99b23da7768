import Contracts
public import Runtime
import ServiceLifecycle
public import Storage
import Wire
public import WireContract

/// The notifications service: turns the other services' events into notifications in each
/// user's inbox, and announces each one on `orderly:wake` so a waiting long-poll or stream
/// answers at once and pushes it to the user's devices; and sends stores' events to their
/// webhooks.
public enum NotificationsService: ServiceDefinition {
    public static let name = NotificationsAPI.service
    public static let wirePort = 7204
    public static let adminPort = 9204
    /// The schema, applied at start before anything is served.
    public static let migrations = NotificationsSchema.migrations
    public static let callers = NotificationsAPI.callers

    /// The service over `environment`: what the process runs, and what tests run in-process.
    public static func parts(_ environment: ServiceEnvironment) throws -> ServiceParts {
        let settings = try WebhookSettings.read(from: environment.configuration)
        let retention = try RetentionSettings.read(from: environment.configuration)
        let devices = DevicesRepository(database: environment.database)
        let apns = try APNsSettings.read(from: environment.configuration)
        let fcm = try FCMSettings.read(from: environment.configuration)
        let web = try WebPushSettings.read(from: environment.configuration)
        let pusher = try PushSender.configured(
            apns: apns, fcm: fcm, web: web, devices: devices, logger: environment.logger)
        let doorbell = Doorbell()
        let notifier = Notifier(
            database: environment.database, redis: environment.redis, doorbell: doorbell, pusher: pusher,
            logger: environment.logger)
        var router = WireRouter()
        NotificationsHandlers(database: environment.database, devices: devices, pusher: pusher).register(in: &router)
        ActivityHandlers(database: environment.database).register(in: &router)
        DevicesHandlers(
            devices: devices, bundleIDs: try APNsSettings.bundleIDs(from: environment.configuration),
            pushedTo: Set([fcm.map { _ in "android" }, web.map { _ in "web" }].compactMap { $0 })
        ).register(in: &router)
        WebhooksHandlers(
            webhooks: notifier.webhooks, destinations: settings.destinations,
            doorbell: doorbell
        ).register(in: &router)
        let dispatcher = WebhookDispatcher(
            webhooks: notifier.webhooks, settings: settings, doorbell: doorbell,
            giveUp: { try await notifier.giveUp(on: $0, reason: $1) }, logger: environment.logger)
        let pushes: [any Service] = pusher.map { [$0] } ?? []
        return ServiceParts(
            router: router,
            consumers: [
                environment.follow(RecipientsFollower(notifier: notifier)),
                environment.follow(OrderNoticesFollower(notifier: notifier)),
                environment.follow(StockNoticesFollower(notifier: notifier)),
                environment.follow(PaymentNoticesFollower(notifier: notifier)),
                dispatcher,
            ] + pushes,
            housekeeping: retention.jobs(environment.database))
    }

    /// What the service makes of the events it follows, without pushes: what tests apply
    /// in-process.
    public static func notifier(_ environment: ServiceEnvironment, doorbell: Doorbell = Doorbell()) -> Notifier {
        Notifier(
            database: environment.database, redis: environment.redis, doorbell: doorbell, pusher: nil,
            logger: environment.logger)
    }
}
