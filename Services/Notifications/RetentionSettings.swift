public import Runtime
import Storage

/// How long the notifications service keeps what it has sent: housekeeping deletes what is
/// older.
///
/// | key | variable | default |
/// |---|---|---|
/// | `notifications.retentionDays` | `ORDERLY_NOTIFICATIONS_RETENTION_DAYS` | 90: a user's notifications, read or not, what the couriers on duty were told, and the stores' activity |
/// | `webhooks.retentionDays` | `ORDERLY_WEBHOOKS_RETENTION_DAYS` | 30: webhook deliveries (bodies included) delivered or given up on, by when they were created; those still being tried are kept |
public struct RetentionSettings: Sendable {
    public var notifications: Duration
    public var webhookDeliveries: Duration

    public init(notifications: Duration = .seconds(90 * 86_400), webhookDeliveries: Duration = .seconds(30 * 86_400)) {
        self.notifications = notifications
        self.webhookDeliveries = webhookDeliveries
    }

    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> RetentionSettings {
        var reader = source.settings()
        let notifications = reader.int("notifications.retentionDays", default: 90, in: 1...3650)
        let deliveries = reader.int("webhooks.retentionDays", default: 30, in: 1...3650)
        try reader.finish()
        return RetentionSettings(
            notifications: .seconds(notifications * 86_400), webhookDeliveries: .seconds(deliveries * 86_400))
    }

    /// The housekeeping jobs that delete what is older than these settings keep.
    func jobs(_ database: Database) -> [Housekeeping.Job] {
        [
            Housekeeping.Job("notifications") {
                try await database.deleteRows(of: "notifications", where: "created_at", olderThan: notifications)
            },
            Housekeeping.Job("stores' activity") {
                try await database.deleteRows(of: "activity", where: "at", olderThan: notifications)
            },
            Housekeeping.Job("broadcasts to couriers") {
                try await NotificationsRepository(database: database).pruneBroadcasts(olderThan: notifications)
            },
            Housekeeping.Job("webhook deliveries") {
                try await database.deleteRows(
                    of: "webhook_deliveries", where: "created_at", olderThan: webhookDeliveries,
                    and: "status <> 'pending'")
            },
        ]
    }
}
