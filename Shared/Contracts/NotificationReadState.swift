import Domain
import Foundation
import WireContract

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
