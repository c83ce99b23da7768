import Notifications
import Runtime

// orderly-notifications: reads its configuration and runs the notifications service until SIGTERM.
await ServiceMain.run(NotificationsService.self)
