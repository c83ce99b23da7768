public import Domain
import Foundation
import WireContract

/// Orders in the caller's scope that changed after the cursor, oldest change first; `removed`
/// names the ones that changed and are no longer the caller's to see (a courier's view of an
/// order another courier claimed). `nextCursor` is always set: the cursor to ask from next.
public struct OrderChangesPage: Codable, Sendable {
    public var data: [Order]
    public var removed: [OrderID]
    public var nextCursor: String
    /// Whether more changes wait after this page.
    public var hasMore: Bool

    public init(data: [Order], removed: [OrderID], nextCursor: String, hasMore: Bool) {
        self.data = data
        self.removed = removed
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case data, removed
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }
}
