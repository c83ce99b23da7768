import Crypto
import Domain
import Foundation
import JWTKit
import Synchronization

/// The pair a login or refresh hands out.
struct TokenPair: Codable, Sendable {
    var accessToken: String
    var refreshToken: String
    var tokenType: String
    var expiresIn: Int
    var user: User

    enum CodingKeys: String, CodingKey {
        case user
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}
