import Crypto
import Domain
import Foundation
import JWTKit

/// What an access token says about its bearer; signed HS256 by the gateway.
struct AccessClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var iss: IssuerClaim
    var role: String
    var storeID: String?
    /// The user's token version when it was issued: a password change, deactivation or role
    /// change moves the version on, and every token issued before stops working.
    var tokenVersion: Int64?

    enum CodingKeys: String, CodingKey {
        case sub, exp, iat, iss, role
        case storeID = "store_id"
        case tokenVersion = "tv"
    }

    static let issuer = "orderly"

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
        guard iss.value == Self.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "wrong issuer")
        }
    }

    /// The principal the claims name; nil when they do not name a valid one.
    var principal: Principal? {
        guard let userID = UserID(sub.value), let role = Role(rawValue: role) else { return nil }
        let store = storeID.flatMap(StoreID.init)
        guard role.isStoreRole == (store != nil) else { return nil }
        return Principal(userID: userID, role: role, storeID: store)
    }
}

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

/// A refresh token as it is stored: its hash, never the token.
struct RefreshTokenRecord: Sendable, Hashable {
    var hash: String
    var family: String
    var userID: UserID
    /// Milliseconds since 1970.
    var expiresAt: Int64
}

/// What presenting a refresh token amounts to.
enum RefreshTokenRedemption: Sendable {
    /// Valid and now spent: issue the next pair in `family`.
    case valid(userID: UserID, family: String)
    /// Unknown, expired or revoked.
    case invalid
    /// Already spent: the family has just been revoked.
    case reused
}

/// Issues and checks tokens: short-lived JWT access tokens, and opaque refresh tokens that are
/// stored hashed (`GatewayRepository`), used once each, and grouped in families (one per
/// login). Presenting a refresh token that was already used means it leaked: its whole family
/// is revoked.
struct TokenIssuer: Sendable {
    let keys: JWTKeyCollection
    let accessLifetime: Duration
    let refreshLifetime: Duration

    static func make(secret: String, accessLifetime: Duration, refreshLifetime: Duration) async -> TokenIssuer {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return TokenIssuer(keys: keys, accessLifetime: accessLifetime, refreshLifetime: refreshLifetime)
    }

    /// The principal of a validly signed, unexpired access token and the token version it was
    /// issued under; `unauthenticated` otherwise.
    func verify(accessToken: String) async throws(OrderlyError) -> (principal: Principal, tokenVersion: Int64) {
        let claims: AccessClaims
        do {
            claims = try await keys.verify(accessToken, as: AccessClaims.self)
        } catch {
            throw OrderlyError(.unauthenticated, "the access token is invalid or expired", reason: "invalid_token")
        }
        guard let principal = claims.principal else {
            throw OrderlyError(.unauthenticated, "the access token is invalid", reason: "invalid_token")
        }
        return (principal, claims.tokenVersion ?? 0)
    }

    /// A new pair for `user`, in a new family at login and in the same family at a refresh, and
    /// the refresh token's record to store.
    func issue(for user: User, tokenVersion: Int64, family: String = UUID.random().lowercasedText) async throws
        -> (tokens: TokenPair, refresh: RefreshTokenRecord)
    {
        let now = Date()
        let claims = AccessClaims(
            sub: SubjectClaim(value: user.id.description),
            exp: ExpirationClaim(value: now.addingTimeInterval(accessLifetime.timeInterval)),
            iat: IssuedAtClaim(value: now), iss: IssuerClaim(value: AccessClaims.issuer), role: user.role.rawValue,
            storeID: user.storeID?.description, tokenVersion: tokenVersion)
        let access = try await keys.sign(claims)
        let refresh = Self.randomToken()
        let record = RefreshTokenRecord(
            hash: Self.hash(refresh), family: family, userID: user.id,
            expiresAt: Date.nowMilliseconds + Int64(refreshLifetime.wholeMilliseconds))
        let pair = TokenPair(
            accessToken: access, refreshToken: refresh, tokenType: "Bearer",
            expiresIn: Int(accessLifetime.components.seconds), user: user)
        return (pair, record)
    }

    /// 32 random bytes, base64url.
    static func randomToken() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// How a token is stored: its SHA-256, hex.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).withUnsafeBytes { Hex.lowercased($0) }
    }
}
