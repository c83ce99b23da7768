import Crypto
import Domain
import Foundation
import JWTKit
import Synchronization

/// What presenting a refresh token amounts to.
enum RefreshTokenRedemption: Sendable {
    /// Valid and now spent: issue the next pair in `family`; a till's session (`till`) no later
    /// than `expiresAt`, when it ends.
    case valid(userID: UserID, family: String, till: TillID?, expiresAt: Int64)
    /// Unknown, expired or revoked.
    case invalid
    /// Already spent: the family has just been revoked.
    case reused
}
