public import Domain
import Foundation
import WireContract

/// Each staff member's time and sales over some days (`YYYY-MM-DD` in the store's time zone):
/// the shifts they clocked in to on those days and the hours they worked in them (an open
/// shift up to now), the payments they completed and what they took less refunds, as the
/// statistics count them.
public struct ShiftSummary: Codable, Sendable, Hashable {
    public var storeID: StoreID
    public var from: String
    public var to: String
    public var timezone: String
    public var staff: [Member]

    public struct Member: Codable, Sendable, Hashable {
        public var staffID: UserID
        public var name: String?
        public var hoursWorked: Double
        public var shiftsCount: Int
        public var salesCount: Int64
        public var revenue: Int64

        public init(
            staffID: UserID, name: String?, hoursWorked: Double, shiftsCount: Int, salesCount: Int64, revenue: Int64
        ) {
            self.staffID = staffID
            self.name = name
            self.hoursWorked = hoursWorked
            self.shiftsCount = shiftsCount
            self.salesCount = salesCount
            self.revenue = revenue
        }

        enum CodingKeys: String, CodingKey {
            case name, revenue
            case staffID = "staff_id"
            case hoursWorked = "hours_worked"
            case shiftsCount = "shifts_count"
            case salesCount = "sales_count"
        }
    }

    public init(storeID: StoreID, from: String, to: String, timezone: String, staff: [Member]) {
        self.storeID = storeID
        self.from = from
        self.to = to
        self.timezone = timezone
        self.staff = staff
    }

    enum CodingKeys: String, CodingKey {
        case from, to, timezone, staff
        case storeID = "store_id"
    }
}
