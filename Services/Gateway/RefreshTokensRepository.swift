import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The gateway's SQL of refresh tokens: stored hashed, used once each, grouped in families
/// (one per login) that are revoked together.
struct RefreshTokensRepository: Sendable {
    let database: Database

    func insert(_ token: RefreshTokenRecord, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at)
            VALUES (\(bind: token.hash), \(bind: token.family), \(bind: token.userID.description),
                \(bind: token.expiresAt))
            """
        ).run()
    }

    /// Spends the refresh token with this hash, atomically: of two requests presenting the same
    /// token, one gets it and the other is treated as a reuse, which revokes the family. Holds the
    /// lock on the user's sessions until the transaction ends, so the successor the caller issues
    /// is in place before a logout, a reuse or the end of every session looks for tokens to
    /// revoke.
    func redeem(refreshToken hash: String, in transaction: Transaction) async throws -> RefreshTokenRedemption {
        guard let token = try await lockedFamily(of: hash, in: transaction) else { return .invalid }
        let now = Date.nowMilliseconds
        if let spent = try await transaction.sql.raw(
            """
            UPDATE refresh_tokens SET used_at = \(bind: now)
            WHERE token_hash = \(bind: hash) AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(bind: now)
            RETURNING user_id
            """
        ).first() {
            guard let user = UserID(try spent.decode(column: "user_id", as: String.self)) else { return .invalid }
            return .valid(userID: user, family: token.family)
        }
        let row = try await transaction.sql.raw("SELECT used_at FROM refresh_tokens WHERE token_hash = \(bind: hash)")
            .first()
        guard let row, try row.decodeNil(column: "used_at") == false else { return .invalid }
        try await revoke(family: token.family, in: transaction)
        return .reused
    }

    /// Revokes every token of the family the token with this hash belongs to (logout), when it
    /// is `user`'s; other tokens are ignored.
    func revokeFamily(of hash: String, user: UserID, in transaction: Transaction) async throws {
        guard let token = try await lockedFamily(of: hash, in: transaction), token.user == user.description else {
            return
        }
        try await revoke(family: token.family, in: transaction)
    }

    /// The family and user of the token with this hash, with the lock on the user's sessions
    /// held until the transaction ends; nil for an unknown token.
    private func lockedFamily(of hash: String, in transaction: Transaction) async throws -> (
        family: String, user: String
    )? {
        guard
            let row = try await transaction.sql.raw(
                "SELECT family_id, user_id FROM refresh_tokens WHERE token_hash = \(bind: hash)"
            ).first()
        else { return nil }
        let user = try row.decode(column: "user_id", as: String.self)
        try await transaction.lock(.sessions(of: user))
        return (try row.decode(column: "family_id", as: String.self), user)
    }

    /// Deletes the refresh tokens of families whose every token has expired; returns how many.
    /// A family with a live token keeps its spent ones: presenting one again revokes the family.
    func removeExpiredRefreshTokens() async throws -> Int {
        let now = Date.nowMilliseconds
        return try await database.deleteRows(
            of: "refresh_tokens", where: "expires_at", below: now + 1,
            and: """
                NOT EXISTS (SELECT 1 FROM refresh_tokens AS live
                WHERE live.family_id = refresh_tokens.family_id AND live.expires_at > \(now))
                """)
    }

    private func revoke(family: String, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE refresh_tokens SET revoked_at = \(bind: Date.nowMilliseconds)
            WHERE family_id = \(bind: family) AND revoked_at IS NULL
            """
        ).run()
    }
}
