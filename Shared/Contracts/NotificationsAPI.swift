import Domain
import Foundation
public import WireContract

/// The notifications service's methods.
public enum NotificationsAPI {
    public static let service = "notifications"
    /// Only the gateway calls it.
    public static let callers = WireCallers([GatewayAPI.service: WireCallers.everything])
    /// The caller's own notifications after a cursor, oldest first, with how many are unread.
    public static let list = WireMethod<NotificationListRequest, NotificationInbox>(
        "notifications.list", safeToRetry: true)
    /// Marks some of the caller's notifications read.
    public static let markRead = WireMethod<NotificationReadRequest, NotificationReadState>(
        "notifications.read", safeToRetry: true)
    /// Another user's notifications after a cursor, for admins and the support desk
    /// (`AccessPolicy.canTendNotifications`).
    public static let listOf = WireMethod<UserNotificationsRequest, NotificationInbox>(
        "notifications.list_of", safeToRetry: true)
    /// Pushes one of another user's notifications to their devices again, for admins and the
    /// support desk.
    public static let resend = WireMethod<NotificationResendRequest, NotificationResent>(
        "notifications.resend", safeToRetry: true)
}
