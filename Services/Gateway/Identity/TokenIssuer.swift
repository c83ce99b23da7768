import Crypto
import Domain
import Foundation
import JWTKit
import Synchronization

/// Issues and checks tokens: short-lived JWT access tokens, and opaque refresh tokens that are
/// stored hashed (`RefreshTokensRepository`), used once each, and grouped in families (one per
/// login). Presenting a refresh token that was already used means it leaked: its whole family
/// is revoked.
struct TokenIssuer: Sendable {
    let keys: JWTKeyCollection
    let accessLifetime: Duration
    let refreshLifetime: Duration
    /// Tokens whose signature and claims were checked, so that a client's next request with
    /// the same token is not checked again (most of a cheap request's work otherwise).
    let verified = VerifiedTokens()

    static func make(secret: String, accessLifetime: Duration, refreshLifetime: Duration) async -> TokenIssuer {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return TokenIssuer(keys: keys, accessLifetime: accessLifetime, refreshLifetime: refreshLifetime)
    }

    /// The principal of a validly signed, unexpired access token, the token version and session
    /// it was issued under, and when it expires; `unauthenticated` otherwise.
    func verify(accessToken: String) async throws(OrderlyError) -> VerifiedTokens.Entry {
        if let known = verified.lookUp(accessToken) { return known }
        let claims: AccessClaims
        do {
            claims = try await keys.verify(accessToken, as: AccessClaims.self)
        } catch {
            throw OrderlyError(.invalidToken, "the access token is invalid or expired")
        }
        guard let principal = claims.principal else {
            throw OrderlyError(.invalidToken, "the access token is invalid")
        }
        let entry = VerifiedTokens.Entry(
            principal: principal, tokenVersion: claims.tokenVersion ?? 0, session: claims.session,
            locale: claims.locale, expires: claims.exp.value)
        verified.remember(accessToken, entry)
        return entry
    }

    /// A new pair for `user`, in a new family (session) at login and in the same family at a
    /// refresh, and the refresh token's record to store, with the `client` it was issued to.
    /// An access token and a refresh token for `user`, in `family`; for a session on a shared
    /// till, the refresh token marked as the till's and expiring at `refreshUntil`.
    func issue(
        for user: User, tokenVersion: Int64, family: String = UUID.random().lowercasedText, client: SessionClient,
        till: TillID? = nil, refreshUntil: Int64? = nil
    ) async throws -> (tokens: TokenPair, refresh: RefreshTokenRecord) {
        let now = Date()
        let claims = AccessClaims(
            sub: SubjectClaim(value: user.id.description),
            exp: ExpirationClaim(value: now.addingTimeInterval(accessLifetime.timeInterval)),
            iat: IssuedAtClaim(value: now), iss: IssuerClaim(value: AccessClaims.issuer), role: user.role.rawValue,
            storeID: user.storeID?.description, tokenVersion: tokenVersion, session: family, locale: user.locale)
        let access = try await keys.sign(claims)
        let refresh = Self.randomToken()
        let record = RefreshTokenRecord(
            hash: Self.hash(refresh), family: family, userID: user.id,
            expiresAt: refreshUntil ?? Date.nowMilliseconds + Int64(refreshLifetime.wholeMilliseconds), client: client,
            tillID: till)
        let pair = TokenPair(
            accessToken: access, refreshToken: refresh, tokenType: "Bearer",
            expiresIn: Int(accessLifetime.components.seconds), user: user)
        return (pair, record)
    }

    /// 32 random bytes, base64url.
    static func randomToken() -> String {
        Base64URL.encoded(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    /// How a token is stored: its SHA-256, hex.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).withUnsafeBytes { Hex.lowercased($0) }
    }
}
