import Domain
import Foundation
import WireContract

/// One read of a store's activity: the entries after the cursor, oldest first; `next_cursor`,
/// the `seq` to read after next time (the last one here, or the cursor read after when there
/// is none); whether more are waiting already.
public struct ActivityPage: Codable, Sendable, Hashable {
    public var data: [ActivityEntry]
    public var nextCursor: Int64
    public var hasMore: Bool

    public init(data: [ActivityEntry], nextCursor: Int64, hasMore: Bool) {
        self.data = data
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case data
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }
}
