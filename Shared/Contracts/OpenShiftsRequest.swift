public import Domain
import Foundation
import WireContract

/// The users whose open shifts to read.
public struct OpenShiftsRequest: Codable, Sendable, Hashable {
    public var userIDs: [UserID]

    public init(userIDs: [UserID]) { self.userIDs = userIDs }

    enum CodingKeys: String, CodingKey { case userIDs = "user_ids" }
}
