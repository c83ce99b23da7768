public import Domain
public import Foundation
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

/// `user_id`'s notifications with `seq` greater than `after`, at most `limit`, as the user reads
/// them.
public struct UserNotificationsRequest: Codable, Sendable, Hashable {
    public var userID: UserID
    public var after: Int64
    public var limit: Int?

    public init(userID: UserID, after: Int64, limit: Int? = nil) {
        self.userID = userID
        self.after = after
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case after, limit
        case userID = "user_id"
    }
}

/// The notification numbered `seq` in `user_id`'s inbox, to push again.
public struct NotificationResendRequest: Codable, Sendable, Hashable {
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
}

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

/// Notifications with `seq` greater than `after`, at most `limit` (1–200, default 50).
public struct NotificationListRequest: Codable, Sendable, Hashable {
    public var after: Int64
    public var limit: Int?

    public init(after: Int64, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }
}

/// One read of an inbox: the notifications after the cursor, oldest first; `next_cursor`, the
/// `seq` to read after next time (the last one here, or the cursor read after when there is
/// none), a number like `after`; whether more are waiting already; and how many of the user's
/// notifications are unread.
public struct NotificationInbox: Codable, Sendable, Hashable {
    public var data: [UserNotification]
    public var nextCursor: Int64
    public var hasMore: Bool
    public var unreadCount: Int64

    public init(data: [UserNotification], nextCursor: Int64, hasMore: Bool, unreadCount: Int64) {
        self.data = data
        self.nextCursor = nextCursor
        self.hasMore = hasMore
        self.unreadCount = unreadCount
    }

    enum CodingKeys: String, CodingKey {
        case data
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
        case unreadCount = "unread_count"
    }
}

/// Which of the caller's notifications to mark read: every one up to and including
/// `up_to_seq`, or those named by `ids` (at most 200); exactly one of the two.
public struct NotificationReadRequest: Codable, Sendable, Hashable {
    public var upToSeq: Int64?
    public var ids: [UUID]?

    public init(upToSeq: Int64? = nil, ids: [UUID]? = nil) {
        self.upToSeq = upToSeq
        self.ids = ids
    }

    enum CodingKeys: String, CodingKey {
        case ids
        case upToSeq = "up_to_seq"
    }

    /// The most ids one request marks.
    public static let maximumIDs = 200
}

/// What marking read did: how many notifications it marked (those already read are not
/// counted), and how many of the caller's are unread now.
public struct NotificationReadState: Codable, Sendable, Hashable {
    public var marked: Int64
    public var unreadCount: Int64

    public init(marked: Int64, unreadCount: Int64) {
        self.marked = marked
        self.unreadCount = unreadCount
    }

    enum CodingKeys: String, CodingKey {
        case marked
        case unreadCount = "unread_count"
    }
}

/// What the notifications service publishes on `orderly:wake` after storing notifications,
/// so that a gateway holding one of those users' long-polls or streams answers at once: a user's
/// new notification, or one told to every courier on duty. One message, a JSON array of these,
/// carries every one stored in a moment.
public struct WakeUp: Codable, Sendable, Hashable {
    /// The user told; nil for what the couriers on duty were told.
    public var userID: UserID?
    /// True for what the couriers on duty were told, whoever they are.
    public var couriersOnDuty: Bool?
    public var seq: Int64

    public init(userID: UserID, seq: Int64) {
        self.userID = userID
        self.seq = seq
    }

    public init(couriersOnDutyAt seq: Int64) {
        self.couriersOnDuty = true
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey {
        case seq
        case userID = "user_id"
        case couriersOnDuty = "couriers_on_duty"
    }

    /// The pub/sub channel.
    public static let channel = "orderly:wake"
}
