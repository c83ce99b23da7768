import Domain
import Foundation

/// An entry of a store's activity as the notifications service keeps it: its type, the keys of
/// its title and subtitle in `NotificationTexts` and their arguments (written in each reader's
/// language when read), the amount where there is one, when it happened and the ids it is about.
struct Activity: Codable, Sendable {
    var storeID: StoreID
    var type: String
    var titleKey: String
    var subtitleKey: String
    var args: [String]
    var amount: Int64?
    var currency: CurrencyCode?
    var at: Date
    var data: [String: String]

    init(
        _ type: String, in store: StoreID, _ titleKey: String, _ subtitleKey: String, _ args: [String],
        amount: Int64? = nil, currency: CurrencyCode? = nil, at: Date, data: [String: String]
    ) {
        self.storeID = store
        self.type = type
        self.titleKey = titleKey
        self.subtitleKey = subtitleKey
        self.args = args
        self.amount = amount
        self.currency = currency
        self.at = at
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case type, args, amount, currency, at, data
        case storeID = "store_id"
        case titleKey = "title_key"
        case subtitleKey = "subtitle_key"
    }
}
