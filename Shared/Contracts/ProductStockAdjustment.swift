public import Domain
import Foundation
import WireContract

/// A stock adjustment of one product.
public struct ProductStockAdjustment: Codable, Sendable, Hashable {
    public var productID: ProductID
    public var adjustment: StockAdjustment

    public init(productID: ProductID, adjustment: StockAdjustment) {
        self.productID = productID
        self.adjustment = adjustment
    }

    enum CodingKeys: String, CodingKey {
        case adjustment
        case productID = "product_id"
    }
}
