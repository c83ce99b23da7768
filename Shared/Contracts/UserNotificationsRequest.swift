public import Domain
import Foundation
import WireContract

/// `user_id`'s notifications with `seq` greater than `after`, at most `limit`, as the user reads
/// them.
public struct UserNotificationsRequest: Codable, Sendable, Hashable {
    public var userID: UserID
    public var after: Int64
    public var limit: Int?

    public init(userID: UserID, after: Int64, limit: Int? = nil) {
        self.userID = userID
        self.after = after
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey {
        case after, limit
        case userID = "user_id"
    }
}
