import Domain
import Foundation
public import WireContract

/// A store's activity feed, which the notifications service keeps from the services' events.
extension NotificationsAPI {
    /// Admins and the store's owners and managers: the store's activity after a cursor, oldest
    /// first.
    public static let activity = WireMethod<ActivityRequest, ActivityPage>(
        "notifications.activity", safeToRetry: true)
}
