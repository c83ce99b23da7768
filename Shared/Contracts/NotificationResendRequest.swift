public import Domain
import Foundation
import WireContract

/// The notification numbered `seq` in `user_id`'s inbox, to push again.
public struct NotificationResendRequest: Codable, Sendable, Hashable {
    public var userID: UserID
    public var seq: Int64

    public init(userID: UserID, seq: Int64) {
        self.userID = userID
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey {
        case seq
        case userID = "user_id"
    }
}
