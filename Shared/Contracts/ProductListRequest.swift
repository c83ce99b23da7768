public import Domain
import Foundation
import WireContract

/// A page of a store's products: those matching every filter given. `search` matches name,
/// sku or barcode; `barcode` one code exactly; `category` must be one the store's products
/// carry.
public struct ProductListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var category: String?
    public var search: String?
    public var barcode: String?
    public var active: Bool?
    public var stockStatuses: [StockStatus]?
    public var page: PageRequest

    public init(
        storeID: StoreID, category: String? = nil, search: String? = nil, barcode: String? = nil,
        active: Bool? = nil, stockStatuses: [StockStatus]? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.category = category
        self.search = search
        self.barcode = barcode
        self.active = active
        self.stockStatuses = stockStatuses
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case category, search, barcode, active, page
        case storeID = "store_id"
        case stockStatuses = "stock_statuses"
    }
}
