public import Domain
import Foundation
import WireContract

/// A store's receipts, newest first; with `number`, that one (a reprint).
public struct ReceiptListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var number: Int64?
    public var page: PageRequest

    public init(storeID: StoreID, number: Int64? = nil, page: PageRequest = PageRequest()) {
        self.storeID = storeID
        self.number = number
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case number, page
        case storeID = "store_id"
    }
}
