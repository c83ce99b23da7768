public import Domain
import WireContract

/// A payout to `store_id` or `courier_id` (exactly one): a positive `amount` paid out of what
/// they earned, a negative one cash they paid in; `reference` the transfer's, `note` free text.
public struct PayoutRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var courierID: UserID?
    public var payout: PayoutDraft

    public init(storeID: StoreID? = nil, courierID: UserID? = nil, payout: PayoutDraft) {
        self.storeID = storeID
        self.courierID = courierID
        self.payout = payout
    }

    enum CodingKeys: String, CodingKey {
        case payout
        case storeID = "store_id"
        case courierID = "courier_id"
    }
}
