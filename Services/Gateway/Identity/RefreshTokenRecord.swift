import Crypto
import Domain
import Foundation
import JWTKit
import Synchronization

/// A refresh token as it is stored: its hash, never the token.
struct RefreshTokenRecord: Sendable, Hashable {
    var hash: String
    var family: String
    var userID: UserID
    /// Milliseconds since 1970.
    var expiresAt: Int64
    /// Who it was issued to, for the list of the user's sessions.
    var client: SessionClient
    /// The shared till the session was opened on with a PIN: revoking the till ends it, and its
    /// refresh tokens never outlive the first one's expiry.
    var tillID: TillID? = nil
}
