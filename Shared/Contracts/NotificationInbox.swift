public import Domain
import Foundation
import WireContract

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
