import Domain

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
