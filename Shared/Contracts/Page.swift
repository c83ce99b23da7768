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
