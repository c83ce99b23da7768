import Notifications
import Runtime

// orderly-notifications: reads its configuration and runs the notifications service until SIGTERM.
await ServiceMain.run(
    service: NotificationsService.name, wirePort: NotificationsService.wirePort,
    adminPort: NotificationsService.adminPort
) { settings, _, logger in
    try await NotificationsService.services(settings: settings, logger: logger)
}
