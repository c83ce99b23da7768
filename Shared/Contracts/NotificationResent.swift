public import Domain
import Foundation
import WireContract

/// A resend handed to the pusher: the notification, and how many of its user's devices it goes
/// to (none when they have none registered).
public struct NotificationResent: Codable, Sendable, Hashable {
    public var notification: UserNotification
    public var devices: Int

    public init(notification: UserNotification, devices: Int) {
        self.notification = notification
        self.devices = devices
    }
}
