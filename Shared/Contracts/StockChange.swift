import Domain
import Foundation
import WireContract

/// How a stock adjustment changes the quantity on hand.
public enum StockChange: Hashable, Sendable {
    case adjustment(Int64)
    case newQuantity(Int64)
}
