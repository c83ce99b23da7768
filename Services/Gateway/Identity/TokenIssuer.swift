import Crypto
import Domain
import Foundation
import JWTKit
import Synchronization

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

    /// The principal of a validly signed, unexpired access token, the token version it was
    /// issued under, and when it expires; `unauthenticated` otherwise.
    func verify(accessToken: String) async throws(OrderlyError) -> (
        principal: Principal, tokenVersion: Int64, expires: Date
    ) {
        if let known = verified.lookUp(accessToken) { return (known.principal, known.tokenVersion, known.expires) }
        let claims: AccessClaims
        do {
            claims = try await keys.verify(accessToken, as: AccessClaims.self)
        } catch {
            throw OrderlyError(.invalidToken, "the access token is invalid or expired")
        }
        guard let principal = claims.principal else {
            throw OrderlyError(.invalidToken, "the access token is invalid")
        }
        let tokenVersion = claims.tokenVersion ?? 0
        verified.remember(
            accessToken,
            VerifiedTokens.Entry(principal: principal, tokenVersion: tokenVersion, expires: claims.exp.value))
        return (principal, tokenVersion, claims.exp.value)
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

/// Access tokens already verified, keyed by the whole token (so a token that differs in one
/// byte is verified afresh), each until its own expiry. At most `capacity` are kept: when full,
/// the expired go, and if that frees too little, all. What a token says is all it is trusted for:
/// whether its session still stands is checked on every request anyway (`Sessions`).
final class VerifiedTokens: Sendable {
    struct Entry: Sendable {
        var principal: Principal
        var tokenVersion: Int64
        var expires: Date
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int
    private let now: @Sendable () -> Date

    init(capacity: Int = 10_000, now: @escaping @Sendable () -> Date = { Date() }) {
        self.capacity = capacity
        self.now = now
    }

    /// What `token` was verified to say, unless it has expired since (or was never verified).
    func lookUp(_ token: String) -> Entry? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard entry.expires > now else {
                entries[token] = nil
                return nil
            }
            return entry
        }
    }

    func remember(_ token: String, _ entry: Entry) {
        let now = now()
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity / 2 { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = entry
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
