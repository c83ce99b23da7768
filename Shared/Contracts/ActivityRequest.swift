public import Domain
import Foundation
import WireContract

/// A store's activity with `seq` greater than `after`, at most `limit` (1–200, default 50).
public struct ActivityRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var after: Int64
    public var limit: Int?

    public init(storeID: StoreID, after: Int64, limit: Int? = nil) {
        self.storeID = storeID
        self.after = after
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case after, limit
        case storeID = "store_id"
    }
}
