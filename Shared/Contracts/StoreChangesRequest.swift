public import Domain

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
