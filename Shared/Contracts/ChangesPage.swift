import Domain

/// A change feed's answer: the resources as they are now, each changed after the cursor asked
/// from, oldest change first; `nextCursor`, always set, is the cursor to ask from next.
public struct ChangesPage<Item: Codable & Sendable>: Codable, Sendable {
    public var data: [Item]
    public var nextCursor: String
    /// Whether more changes wait after this page.
    public var hasMore: Bool

    public init(data: [Item], nextCursor: String, hasMore: Bool) {
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
