public import Domain
import WireContract

/// A customer's device to keep in a store.
public struct NewCustomerDevice: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var device: CustomerDeviceDraft

    public init(storeID: StoreID, device: CustomerDeviceDraft) {
        self.storeID = storeID
        self.device = device
    }

    enum CodingKeys: String, CodingKey {
        case device
        case storeID = "store_id"
    }
}
