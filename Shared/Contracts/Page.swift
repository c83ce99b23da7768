public import Domain

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

/// Names one resource by id.
public struct ResourceRef<ID: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var id: ID

    public init(id: ID) { self.id = id }
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

/// Changes to a resource: the fields to change (absent means unchanged) and, optionally, the
/// version they are based on (from `If-Match` or the body's `expected_version`), which guards
/// against overwriting a change the client has not seen.
public struct Patch<ID: Codable & Sendable & Hashable, Changes: Codable & Sendable & Hashable>: Codable, Sendable,
    Hashable
{
    public var id: ID
    public var expectedVersion: Int64?
    public var changes: Changes

    public init(id: ID, expectedVersion: Int64?, changes: Changes) {
        self.id = id
        self.expectedVersion = expectedVersion
        self.changes = changes
    }

    enum CodingKeys: String, CodingKey {
        case id, changes
        case expectedVersion = "expected_version"
    }
}

/// A store's change feed after `since` ("0" for everything), at most `limit` changes.
public struct StoreChangesRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var since: String
    public var limit: Int?

    public init(storeID: StoreID, since: String, limit: Int? = nil) {
        self.storeID = storeID
        self.since = since
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case since, limit
        case storeID = "store_id"
    }
}

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
