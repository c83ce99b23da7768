import Domain
public import Foundation
import WireContract

/// Which of the caller's notifications to mark read: every one up to and including
/// `up_to_seq`, or those named by `ids` (at most 200); exactly one of the two.
public struct NotificationReadRequest: Codable, Sendable, Hashable {
    public var upToSeq: Int64?
    public var ids: [UUID]?

    public init(upToSeq: Int64? = nil, ids: [UUID]? = nil) {
        self.upToSeq = upToSeq
        self.ids = ids
    }

    enum CodingKeys: String, CodingKey {
        case ids
        case upToSeq = "up_to_seq"
    }

    /// The most ids one request marks.
    public static let maximumIDs = 200
}
