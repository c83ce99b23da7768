public import Domain
import WireContract

/// A holder's balances per currency, and a page of the entries that moved them, newest first
/// (with their total when asked, as `Page` has it).
public struct AccountBalance: Codable, Sendable, Hashable {
    public var storeID: StoreID?
    public var courierID: UserID?
    public var balances: [CurrencyBalance]
    public var data: [AccountEntry]
    public var nextCursor: String?
    public var total: Int?
    public var totalEstimated: Bool?

    public init(
        holder: Ledger.Holder, balances: [CurrencyBalance], data: [AccountEntry], nextCursor: String?,
        total: ListTotal? = nil
    ) {
        if case .store(let store) = holder { storeID = store }
        if case .courier(let courier) = holder { courierID = courier }
        self.balances = balances
        self.data = data
        self.nextCursor = nextCursor
        self.total = total?.count
        self.totalEstimated = total?.estimated
    }

    enum CodingKeys: String, CodingKey {
        case balances, data
        case storeID = "store_id"
        case courierID = "courier_id"
        case nextCursor = "next_cursor"
        case total
        case totalEstimated = "total_estimated"
    }
}
