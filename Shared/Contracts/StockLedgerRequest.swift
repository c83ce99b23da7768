public import Domain
import Foundation
import WireContract

/// A page of one product's stock ledger.
public struct StockLedgerRequest: Codable, Sendable, Hashable {
    public var productID: ProductID
    public var page: PageRequest

    public init(productID: ProductID, page: PageRequest = PageRequest()) {
        self.productID = productID
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case page
        case productID = "product_id"
    }
}
