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
}
