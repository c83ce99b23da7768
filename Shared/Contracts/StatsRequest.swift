public import Domain
import Foundation
import WireContract

/// A store's statistics over the days `from` to `to` (inclusive, `YYYY-MM-DD` in the store's
/// time zone; at most 366 days).
public struct StatsRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var from: String?
    public var to: String?

    public init(storeID: StoreID, from: String?, to: String?) {
        self.storeID = storeID
        self.from = from
        self.to = to
    }

    enum CodingKeys: String, CodingKey {
        case from, to
        case storeID = "store_id"
    }
}
