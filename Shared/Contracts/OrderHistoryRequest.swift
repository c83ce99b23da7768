public import Domain
import Foundation
import WireContract

/// An order's history, oldest first.
public struct OrderHistoryRequest: Codable, Sendable, Hashable {
    public var id: OrderID
    public var page: PageRequest

    public init(id: OrderID, page: PageRequest = PageRequest()) {
        self.id = id
        self.page = page
    }
}
