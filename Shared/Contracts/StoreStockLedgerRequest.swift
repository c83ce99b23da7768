public import Domain
public import Foundation
import WireContract

/// A store's stock ledger, newest first: one product's entries, those of some reasons, those
/// made from `from` (inclusive) to `to` (exclusive).
public struct StoreStockLedgerRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var productID: ProductID?
    public var reasons: [StockReason]?
    public var from: Date?
    public var to: Date?
    public var page: PageRequest

    public init(
        storeID: StoreID, productID: ProductID? = nil, reasons: [StockReason]? = nil, from: Date? = nil,
        to: Date? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.productID = productID
        self.reasons = reasons
        self.from = from
        self.to = to
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case reasons, from, to, page
        case storeID = "store_id"
        case productID = "product_id"
    }
}
