public import Domain
public import Foundation
import WireContract

/// Which orders to list. Store users see their store's orders, couriers the delivery orders
/// nobody has claimed and their own, customers the ones they created, admins all (or one
/// store's with `storeID`). The filters narrow that scope.
public struct OrderListRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var statuses: [OrderStatus]?
    public var fulfillment: Fulfillment?
    public var courierID: UserID?
    /// Only unclaimed delivery orders a courier can claim now.
    public var available: Bool?
    public var createdFrom: Date?
    public var createdTo: Date?
    public var dueFrom: Date?
    public var dueTo: Date?
    /// Matches the order number and the recipient's or customer's name; a phone-like search
    /// (four or more characters, each a digit, a space or one of `+()-`) also the phone, in the orders whose phone the caller sees.
    public var search: String?
    public var sort: OrderSort?
    /// The orders the store archived, alone; without it, lists leave them out.
    public var archived: Bool?
    public var page: PageRequest

    public init(
        storeID: StoreID? = nil, statuses: [OrderStatus]? = nil, fulfillment: Fulfillment? = nil,
        courierID: UserID? = nil, available: Bool? = nil, createdFrom: Date? = nil, createdTo: Date? = nil,
        dueFrom: Date? = nil, dueTo: Date? = nil, search: String? = nil, sort: OrderSort? = nil,
        archived: Bool? = nil, page: PageRequest = PageRequest()
    ) {
        self.storeID = storeID
        self.statuses = statuses
        self.fulfillment = fulfillment
        self.courierID = courierID
        self.available = available
        self.createdFrom = createdFrom
        self.createdTo = createdTo
        self.dueFrom = dueFrom
        self.dueTo = dueTo
        self.search = search
        self.sort = sort
        self.archived = archived
        self.page = page
    }

    enum CodingKeys: String, CodingKey {
        case statuses, fulfillment, available, search, sort, archived, page
        case storeID = "store_id"
        case courierID = "courier_id"
        case createdFrom = "created_from"
        case createdTo = "created_to"
        case dueFrom = "due_from"
        case dueTo = "due_to"
    }
}
