public import Domain
import WireContract

/// A store's customer records, newest first; with `search`, those whose name or e-mail
/// contains it, or whose phone's digits contain its digits.
public struct CustomerListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var search: String?
    public var page: PageRequest

    public init(storeID: StoreID, search: String? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.search = search
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case page
        case storeID = "store_id"
        case search = "q"
    }
}
