public import Domain
import WireContract

/// The card a reader read at a store's till.
public struct CardLookupRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var uid: String?

    public init(storeID: StoreID, uid: String?) {
        self.storeID = storeID
        self.uid = uid
    }

    enum CodingKeys: String, CodingKey {
        case uid
        case storeID = "store_id"
    }
}
