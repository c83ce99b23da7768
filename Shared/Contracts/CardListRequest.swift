public import Domain
import WireContract

/// A store's cards, newest first: in any of `statuses`, of `customerID`.
public struct CardListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var statuses: [CardStatus]?
    public var customerID: CustomerID?
    public var page: PageRequest

    public init(
        storeID: StoreID, statuses: [CardStatus]? = nil, customerID: CustomerID? = nil,
        page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.statuses = statuses
        self.customerID = customerID
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case statuses, page
        case storeID = "store_id"
        case customerID = "customer_id"
    }
}
