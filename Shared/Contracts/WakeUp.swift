public import Domain
import Foundation
import WireContract

/// What the notifications service publishes on `orderly:wake` after storing notifications,
/// so that a gateway holding one of those users' long-polls or streams answers at once: a user's
/// new notification, or one told to every courier on duty. One message, a JSON array of these,
/// carries every one stored in a moment.
public struct WakeUp: Codable, Sendable, Hashable {
    /// The user told; nil for what the couriers on duty were told.
    public var userID: UserID?
    /// True for what the couriers on duty were told, whoever they are.
    public var couriersOnDuty: Bool?
    public var seq: Int64

    public init(userID: UserID, seq: Int64) {
        self.userID = userID
        self.seq = seq
    }

    public init(couriersOnDutyAt seq: Int64) {
        self.couriersOnDuty = true
        self.seq = seq
    }

    enum CodingKeys: String, CodingKey {
        case seq
        case userID = "user_id"
        case couriersOnDuty = "couriers_on_duty"
    }

    /// The pub/sub channel.
    public static let channel = "orderly:wake"
}
