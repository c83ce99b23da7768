import Domain

/// Names one resource by id.
public struct ResourceRef<ID: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var id: ID

    public init(id: ID) { self.id = id }
}
