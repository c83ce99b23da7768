import Domain
import Foundation
import WireContract

/// Notifications with `seq` greater than `after`, at most `limit` (1–200, default 50).
public struct NotificationListRequest: Codable, Sendable, Hashable {
    public var after: Int64
    public var limit: Int?

    public init(after: Int64, limit: Int? = nil) {
        self.after = after
        self.limit = limit
    }
}
