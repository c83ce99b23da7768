public import Domain
public import Foundation
public import WireContract

/// A store's activity feed, which the notifications service keeps from the services' events.
extension NotificationsAPI {
    /// Admins and the store's owners and managers: the store's activity after a cursor, oldest
    /// first.
    public static let activity = WireMethod<ActivityRequest, ActivityPage>(
        "notifications.activity", safeToRetry: true)
}

/// A store's activity with `seq` greater than `after`, at most `limit` (1–200, default 50).
public struct ActivityRequest: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var after: Int64
    public var limit: Int?

    public init(storeID: StoreID, after: Int64, limit: Int? = nil) {
        self.storeID = storeID
        self.after = after
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case after, limit
        case storeID = "store_id"
    }
}

/// One read of a store's activity: the entries after the cursor, oldest first; `next_cursor`,
/// the `seq` to read after next time (the last one here, or the cursor read after when there
/// is none); whether more are waiting already.
public struct ActivityPage: Codable, Sendable, Hashable {
    public var data: [ActivityEntry]
    public var nextCursor: Int64
    public var hasMore: Bool

    public init(data: [ActivityEntry], nextCursor: Int64, hasMore: Bool) {
        self.data = data
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case data
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }
}

/// Something that happened in a store, as its dashboard lists it: `type` (`payment`, `refund`,
/// `card_linked`, `clock_in`, `clock_out`, `product_created`, `low_stock`), its `title` and
/// `subtitle` in the reader's language, the amount where there is one, when it happened, and
/// the ids it is about (`data`: `payment_id`, `refund_id`, `card_id`, `customer_id`,
/// `user_id`, `shift_id`, `product_id`). `seq` numbers the store's entries, one per event.
public struct ActivityEntry: Codable, Sendable, Hashable {
    public var seq: Int64
    public var type: String
    public var title: String
    public var subtitle: String
    public var amount: Int64?
    public var currency: CurrencyCode?
    public var at: Date
    public var data: [String: String]

    public init(
        seq: Int64, type: String, title: String, subtitle: String, amount: Int64?, currency: CurrencyCode?, at: Date,
        data: [String: String]
    ) {
        self.seq = seq
        self.type = type
        self.title = title
        self.subtitle = subtitle
        self.amount = amount
        self.currency = currency
        self.at = at
        self.data = data
    }

    /// The types there are.
    public static let types = [
        "payment", "refund", "card_linked", "clock_in", "clock_out", "product_created", "low_stock",
    ]
}
