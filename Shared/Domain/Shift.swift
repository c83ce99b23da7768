public import Foundation

/// A staff member's time at the till, from clocking in to clocking out, and their cash drawer:
/// what it opened with, the cash payments they completed and the cash refunds they gave while
/// it was open, and at the end what they counted and how far that is from what it should hold.
public struct Shift: Hashable, Sendable, Codable {
    public var id: ShiftID
    public var storeID: StoreID
    public var userID: UserID
    /// The staff member's name when they clocked in, as the store's roster had it.
    public var staffName: String?
    public var clockedInAt: Date
    public var clockedInBy: UserID
    public var openingCash: Int64
    public var cashSales: Int64
    public var cashRefunds: Int64
    public var clockedOutAt: Date?
    public var clockedOutBy: UserID?
    public var countedCash: Int64?
    /// `opening_cash + cash_sales − cash_refunds`, at clock-out.
    public var expectedCash: Int64?
    /// `counted_cash − expected_cash`: negative when cash is missing.
    public var difference: Int64?

    public init(
        id: ShiftID, storeID: StoreID, userID: UserID, clockedInAt: Date, clockedInBy: UserID, openingCash: Int64
    ) {
        self.id = id
        self.storeID = storeID
        self.userID = userID
        self.clockedInAt = clockedInAt
        self.clockedInBy = clockedInBy
        self.openingCash = openingCash
        self.cashSales = 0
        self.cashRefunds = 0
    }

    public var isOpen: Bool { clockedOutAt == nil }

    /// Ends the shift at `now` with the cash counted in the drawer.
    public mutating func clockOut(at now: Date, by user: UserID, counted: Int64) {
        clockedOutAt = now
        clockedOutBy = user
        countedCash = counted
        let expected = openingCash + cashSales - cashRefunds
        expectedCash = expected
        difference = counted - expected
    }

    enum CodingKeys: String, CodingKey {
        case id, difference
        case storeID = "store_id"
        case userID = "user_id"
        case staffName = "staff_name"
        case clockedInAt = "clocked_in_at"
        case clockedInBy = "clocked_in_by"
        case openingCash = "opening_cash"
        case cashSales = "cash_sales"
        case cashRefunds = "cash_refunds"
        case clockedOutAt = "clocked_out_at"
        case clockedOutBy = "clocked_out_by"
        case countedCash = "counted_cash"
        case expectedCash = "expected_cash"
    }
}
