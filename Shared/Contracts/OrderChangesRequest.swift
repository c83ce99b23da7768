public import Domain
import Foundation
import WireContract

/// The change feed after `since` ("0" for everything).
public struct OrderChangesRequest: Codable, Sendable, Hashable {
    public var since: String
    public var storeID: StoreID?
    public var limit: Int?

    public init(since: String, storeID: StoreID? = nil, limit: Int? = nil) {
        self.since = since
        self.storeID = storeID
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case since, limit
        case storeID = "store_id"
    }
}
