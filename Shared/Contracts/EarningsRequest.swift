import Domain
public import Foundation
import WireContract

/// A courier's earnings over [`from`, `to`).
public struct EarningsRequest: Codable, Sendable, Hashable {
    public var from: Date
    public var to: Date

    public init(from: Date, to: Date) {
        self.from = from
        self.to = to
    }
}
