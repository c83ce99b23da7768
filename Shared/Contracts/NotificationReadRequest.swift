public import Domain
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

    /// The checked request: `up_to_seq` (1 or more) or `ids` (1 to `maximumIDs`), exactly one
    /// of them, the other nil. Throws an error naming the bad field.
    public func validated() throws(OrderlyError) -> (upToSeq: Int64?, ids: [UUID]?) {
        var problems = FieldProblems()
        switch (upToSeq, ids) {
        case (nil, nil):
            problems.add("up_to_seq", "give up_to_seq or ids")
        case (.some, .some):
            problems.add("ids", "give up_to_seq or ids, not both")
        case (let seq?, nil):
            if seq < 1 { problems.add("up_to_seq", "must be 1 or more") }
        case (nil, let ids?):
            if ids.isEmpty || ids.count > Self.maximumIDs {
                problems.add("ids", "must name 1 to \(Self.maximumIDs) notifications")
            }
        }
        try problems.check()
        return (upToSeq, ids)
    }
}
