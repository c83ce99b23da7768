public import Domain
import WireContract

/// Whose balance to read (a store's or a courier's, exactly one) and which page of its entries.
public struct BalanceRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var courierID: UserID?
    public var page: PageRequest

    public init(storeID: StoreID? = nil, courierID: UserID? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.courierID = courierID
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case page
        case storeID = "store_id"
        case courierID = "courier_id"
    }

    /// The holder named.
    public func holder() throws(OrderlyError) -> Ledger.Holder {
        switch (storeID, courierID) {
        case (let store?, nil): return .store(store)
        case (nil, let courier?): return .courier(courier)
        default: throw OrderlyError.invalidFields(["store_id": "name a store or a courier, one of the two"])
        }
    }
}
