public import Domain
import WireContract

/// A customer record to create in a store.
public struct NewCustomer: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var customer: CustomerDraft

    public init(storeID: StoreID, customer: CustomerDraft) {
        self.storeID = storeID
        self.customer = customer
    }

    enum CodingKeys: String, CodingKey {
        case customer
        case storeID = "store_id"
    }
}
