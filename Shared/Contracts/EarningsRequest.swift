import Domain
public import Foundation
import WireContract

/// A courier's earnings over [`from`, `to`), in days of `timeZone` (an IANA name; UTC when nil).
public struct EarningsRequest: Codable, Sendable, Hashable {
    public var from: Date
    public var to: Date
    public var timeZone: String?

    public init(from: Date, to: Date, timeZone: String? = nil) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
    }

    enum CodingKeys: String, CodingKey {
        case from, to
        case timeZone = "tz"
    }
}
