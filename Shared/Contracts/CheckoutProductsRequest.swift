public import Domain
import Foundation
import WireContract

/// The products a sale names, of one store (`StockHolds.sellable`).
public struct CheckoutProductsRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var ids: [ProductID]

    public init(storeID: StoreID, ids: [ProductID]) {
        self.storeID = storeID
        self.ids = ids
    }

    enum CodingKeys: String, CodingKey {
        case ids
        case storeID = "store_id"
    }
}
