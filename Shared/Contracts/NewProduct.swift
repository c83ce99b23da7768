public import Domain
import Foundation
import WireContract

/// A product to create in a store.
public struct NewProduct: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var product: ProductDraft

    public init(storeID: StoreID, product: ProductDraft) {
        self.storeID = storeID
        self.product = product
    }

    enum CodingKeys: String, CodingKey {
        case product
        case storeID = "store_id"
    }
}
