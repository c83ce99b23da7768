public import Domain
public import Wire

/// The notifications service's methods.
public enum NotificationsAPI {
    public static let service = "notifications"
    /// The caller's own notifications after a cursor, oldest first.
    public static let list = WireMethod<NotificationListRequest, Page<UserNotification>>(
        "notifications.list", safeToRetry: true)
}

/// Notifications with `seq` greater than `after`, at most `limit` (1–200, default 50).
public struct NotificationListRequest: Codable, Sendable, Hashable {
    public var after: Int64
    public var limit: Int?

    public init(after: Int64, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }
}

/// What the notifications service publishes on `orderly:wake` after storing notifications,
/// so that a gateway holding one of those users' long-polls answers at once. One message, a
/// JSON array of these, carries every user the notifications of a moment went to.
public struct WakeUp: Codable, Sendable, Hashable {
    public var userID: UserID
    public var seq: Int64

    public init(userID: UserID, seq: Int64) {
        self.userID = userID
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey {
        case seq
        case userID = "user_id"
    }

    /// The pub/sub channel.
    public static let channel = "orderly:wake"
}
