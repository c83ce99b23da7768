public import Domain

/// One page of a list: the items and the cursor of the next page (nil on the last); when asked,
/// how many the whole list holds (`ListTotal`: `total`, and `total_estimated` past the bound).
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    public var data: [Item]
    public var nextCursor: String?
    public var total: Int?
    public var totalEstimated: Bool?

    public init(data: [Item], nextCursor: String?, total: ListTotal? = nil) {
        self.data = data
        self.nextCursor = nextCursor
        self.total = total?.count
        self.totalEstimated = total?.estimated
    }

    /// This page with each item transformed, its cursor and total kept.
    public func map<Other: Codable & Sendable>(_ transform: (Item) throws -> Other) rethrows -> Page<Other> {
        replacing(data: try data.map(transform))
    }

    /// This page's cursor and total over `data`, its items as shown another way.
    public func replacing<Other: Codable & Sendable>(data: [Other]) -> Page<Other> {
        var page = Page<Other>(data: data, nextCursor: nextCursor)
        (page.total, page.totalEstimated) = (total, totalEstimated)
        return page
    }

    enum CodingKeys: String, CodingKey {
        case data
        case nextCursor = "next_cursor"
        case total
        case totalEstimated = "total_estimated"
    }
}

/// How much of a list to read: `limit` (1–200, default 50) items after `cursor`; with `count`,
/// the page also says how many the whole list holds.
public struct PageRequest: Codable, Sendable, Hashable {
    public var limit: Int?
    public var cursor: String?
    public var count: Bool?

    public init(limit: Int? = nil, cursor: String? = nil, count: Bool? = nil) {
        self.limit = limit
        self.cursor = cursor
        self.count = count
    }

    /// Whether the page should carry the list's total.
    public var counting: Bool { count == true }

    public static let defaultLimit = 50
    public static let maximumLimit = 200
}
