public import Domain
public import Foundation
import WireContract

/// Which of a store's payments to list: in any of `statuses` and `methods`, taken by
/// `staffID`, created from `from` (inclusive) to `to` (exclusive); newest first.
public struct PaymentListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var statuses: [PaymentStatus]?
    public var methods: [PaymentMethod]?
    public var staffID: UserID?
    public var from: Date?
    public var to: Date?
    public var page: PageRequest

    public init(
        storeID: StoreID, statuses: [PaymentStatus]? = nil, methods: [PaymentMethod]? = nil, staffID: UserID? = nil,
        from: Date? = nil, to: Date? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.statuses = statuses
        self.methods = methods
        self.staffID = staffID
        self.from = from
        self.to = to
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case statuses, methods, from, to, page
        case storeID = "store_id"
        case staffID = "staff_id"
    }
}
