public import Domain
public import Foundation
import WireContract

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
