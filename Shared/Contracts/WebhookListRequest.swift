public import Domain
import Foundation
import WireContract

/// A store's endpoints, oldest first.
public struct WebhookListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var page: PageRequest

    public init(storeID: StoreID, page: PageRequest) {
        self.storeID = storeID
        self.page = page
    }
}
