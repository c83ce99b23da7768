internal import Crypto
internal import Domain
internal import Foundation
internal import JWTKit
internal import SQLKit
internal import Storage

/// What an access token says about its bearer; signed HS256 by the gateway.
struct AccessClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var iss: IssuerClaim
    var role: String
    var storeID: String?

    enum CodingKeys: String, CodingKey {
        case sub, exp, iat, iss, role
        case storeID = "store_id"
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

/// Issues and checks tokens: short-lived JWT access tokens, and opaque refresh tokens that are
/// stored hashed, used once each, and grouped in families (one per login). Presenting a refresh
/// token that was already used means it leaked: its whole family is revoked.
struct TokenIssuer: Sendable {
    let keys: JWTKeyCollection
    let database: Database
    let accessLifetime: Duration
    let refreshLifetime: Duration

    static func make(secret: String, database: Database, accessLifetime: Duration, refreshLifetime: Duration) async
        -> TokenIssuer
    {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return TokenIssuer(
            keys: keys, database: database, accessLifetime: accessLifetime, refreshLifetime: refreshLifetime)
    }

    /// The principal of a valid access token; `unauthenticated` otherwise.
    func verify(accessToken: String) async throws(OrderlyError) -> Principal {
        let claims: AccessClaims
        do {
            claims = try await keys.verify(accessToken, as: AccessClaims.self)
        } catch {
            throw OrderlyError(.unauthenticated, "the access token is invalid or expired", reason: "invalid_token")
        }
        guard let principal = claims.principal else {
            throw OrderlyError(.unauthenticated, "the access token is invalid", reason: "invalid_token")
        }
        return principal
    }

    /// A new pair for `user`: in a new family at login, in the same family at a refresh.
    func issue(for user: User, family: String = UUID.random().lowercasedText, in transaction: Transaction)
        async throws -> TokenPair
    {
        let now = Date()
        let claims = AccessClaims(
            sub: SubjectClaim(value: user.id.description),
            exp: ExpirationClaim(value: now.addingTimeInterval(accessLifetime.timeInterval)),
            iat: IssuedAtClaim(value: now), iss: IssuerClaim(value: AccessClaims.issuer), role: user.role.rawValue,
            storeID: user.storeID?.description)
        let access = try await keys.sign(claims)
        let refresh = Self.randomToken()
        try await transaction.sql.raw(
            """
            INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at)
            VALUES (\(bind: Self.hash(refresh)), \(bind: family), \(bind: user.id.description),
                \(bind: Date.nowMilliseconds + Int64(refreshLifetime.wholeMilliseconds)))
            """
        ).run()
        return TokenPair(
            accessToken: access, refreshToken: refresh, tokenType: "Bearer",
            expiresIn: Int(accessLifetime.components.seconds), user: user)
    }

    /// What presenting a refresh token amounts to.
    enum Redemption: Sendable {
        /// Valid and now spent: issue the next pair in `family`.
        case valid(userID: UserID, family: String)
        /// Unknown, expired or revoked.
        case invalid
        /// Already spent: the family has just been revoked.
        case reused
    }

    /// Spends a refresh token, atomically: of two requests presenting the same token, one
    /// gets it and the other is treated as a reuse.
    func redeem(_ token: String, in transaction: Transaction) async throws -> Redemption {
        let hash = Self.hash(token)
        let now = Date.nowMilliseconds
        if let spent = try await transaction.sql.raw(
            """
            UPDATE refresh_tokens SET used_at = \(bind: now)
            WHERE token_hash = \(bind: hash) AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(bind: now)
            RETURNING user_id, family_id
            """
        ).first() {
            guard let user = UserID(try spent.decode(column: "user_id", as: String.self)) else { return .invalid }
            return .valid(userID: user, family: try spent.decode(column: "family_id", as: String.self))
        }
        guard
            let row = try await transaction.sql.raw(
                "SELECT family_id, used_at, revoked_at FROM refresh_tokens WHERE token_hash = \(bind: hash)"
            ).first(), try row.decodeNil(column: "used_at") == false
        else { return .invalid }
        try await revoke(family: try row.decode(column: "family_id", as: String.self), in: transaction)
        return .reused
    }

    /// Revokes every token of the family `token` belongs to (logout), when it is `user`'s;
    /// other tokens are ignored.
    func revokeFamily(of token: String, user: UserID, in transaction: Transaction) async throws {
        guard
            let row = try await transaction.sql.raw(
                """
                SELECT family_id FROM refresh_tokens
                WHERE token_hash = \(bind: Self.hash(token)) AND user_id = \(bind: user.description)
                """
            ).first()
        else { return }
        try await revoke(family: try row.decode(column: "family_id", as: String.self), in: transaction)
    }

    private func revoke(family: String, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE refresh_tokens SET revoked_at = \(bind: Date.nowMilliseconds)
            WHERE family_id = \(bind: family) AND revoked_at IS NULL
            """
        ).run()
    }

    /// 32 random bytes, base64url.
    static func randomToken() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
