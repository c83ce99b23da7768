public import Domain
public import Foundation
import WireContract

/// What a courier earned by the orders they delivered in a time range, per currency: the
/// stores' delivery fees and the customers' tips, with the cash they collected at the door (which
/// they owe); in total and per day of the courier's time zone (`tz`).
public struct Earnings: Codable, Sendable, Hashable {
    public struct Total: Codable, Sendable, Hashable {
        public var currency: CurrencyCode
        public var deliveries: Int
        public var deliveryFees: Int64
        public var tips: Int64
        public var cashCollected: Int64

        public init(currency: CurrencyCode, deliveries: Int, deliveryFees: Int64, tips: Int64, cashCollected: Int64) {
            self.currency = currency
            self.deliveries = deliveries
            self.deliveryFees = deliveryFees
            self.tips = tips
            self.cashCollected = cashCollected
        }

        enum CodingKeys: String, CodingKey {
            case currency, deliveries, tips
            case deliveryFees = "delivery_fees"
            case cashCollected = "cash_collected"
        }
    }

    /// One day's totals (a day of `tz`, `YYYY-MM-DD`), per currency.
    public struct Day: Codable, Sendable, Hashable {
        public var date: String
        public var totals: [Total]

        public init(date: String, totals: [Total]) {
            self.date = date
            self.totals = totals
        }
    }

    public var courierID: UserID
    public var from: Date
    public var to: Date
    /// The time zone the days are of: the courier's, or UTC.
    public var timeZone: String
    public var deliveries: Int
    public var totals: [Total]
    /// The days with deliveries, oldest first.
    public var days: [Day]

    public init(
        courierID: UserID, from: Date, to: Date, timeZone: String, deliveries: Int, totals: [Total], days: [Day]
    ) {
        self.courierID = courierID
        self.timeZone = timeZone
        self.from = from
        self.to = to
        self.deliveries = deliveries
        self.totals = totals
        self.days = days
    }

    enum CodingKeys: String, CodingKey {
        case from, to, deliveries, totals, days
        case courierID = "courier_id"
        case timeZone = "tz"
    }
}
