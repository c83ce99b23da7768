import Domain

/// One page of a list: the items and the cursor of the next page (nil on the last).
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    public var data: [Item]
    public var nextCursor: String?

    public init(data: [Item], nextCursor: String?) {
        self.data = data
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case data
        case nextCursor = "next_cursor"
    }
}

/// How much of a list to read: `limit` (1–200, default 50) items after `cursor`.
public struct PageRequest: Codable, Sendable, Hashable {
    public var limit: Int?
    public var cursor: String?

    public init(limit: Int? = nil, cursor: String? = nil) {
        self.limit = limit
        self.cursor = cursor
    }

    public static let defaultLimit = 50
    public static let maximumLimit = 200
}
