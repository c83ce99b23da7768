public import Domain
import Foundation
import WireContract

/// Stock to hold for a sale: `lines` of distinct products of the store, for
/// `expires_in_seconds` (1 to a day; 15 minutes when absent). `id` may be chosen by the client.
/// `orderID` is the orders service's alone: the order whose line the stock is for, which then
/// keeps it held until the order ends once the line is stored (the catalog's `OrdersFollower`).
/// `paymentID` is the payments service's alone: the payment whose items the stock is for, which it
/// then follows (the catalog's `PaymentsFollower`).
/// The products a checkout names, of one store.
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
