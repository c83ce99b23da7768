public import Domain
import Foundation
import WireContract

/// Clocking in or out: `user_id` (the caller when absent), with the cash the drawer opens with
/// (`opening_cash`, 0 when absent) or the cash counted at the end (`counted_cash`, required).
public struct ClockRequest: Codable, Sendable, Hashable {
    public var userID: UserID?
    public var openingCash: Int64?
    public var countedCash: Int64?

    public init(userID: UserID? = nil, openingCash: Int64? = nil, countedCash: Int64? = nil) {
        self.userID = userID
        self.openingCash = openingCash
        self.countedCash = countedCash
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case openingCash = "opening_cash"
        case countedCash = "counted_cash"
    }

    /// The cash the drawer opens with, checked for a clock-in (0 when absent; no counted cash).
    public func validatedForClockIn() throws(OrderlyError) -> Int64 {
        var problems = FieldProblems()
        let opening = problems.integer(openingCash ?? 0, "opening_cash", in: 0...Payment.maximumAmount) ?? 0
        if countedCash != nil { problems.add("counted_cash", "is counted at clock-out") }
        try problems.check()
        return opening
    }

    /// The cash counted at the end, checked for a clock-out (required; no opening cash).
    public func validatedForClockOut() throws(OrderlyError) -> Int64 {
        var problems = FieldProblems()
        let counted = problems.integer(countedCash, "counted_cash", in: 0...Payment.maximumAmount * 10) ?? 0
        if openingCash != nil { problems.add("opening_cash", "is given at clock-in") }
        try problems.check()
        return counted
    }
}
