import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The gateway's SQL of refresh tokens: stored hashed, used once each, grouped in families
/// (one per login: a session) that are revoked together. Each token keeps when it was issued and
/// to which device and network, for the user's list of their sessions.
struct RefreshTokensRepository: Sendable {
    let database: Database

    func insert(_ token: RefreshTokenRecord, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, created_at, device, network,
                till_id)
            VALUES (\(bind: token.hash), \(bind: token.family), \(bind: token.userID.description),
                \(bind: token.expiresAt), \(bind: Date.nowMilliseconds), \(bind: token.client.device),
                \(bind: token.client.network), \(bind: token.tillID?.description))
            """
        ).run()
    }

    /// `user`'s sessions that still stand (a family with a live token), the latest used first:
    /// when each began, and when, from what device and from which network it was last used (its
    /// live token's issue).
    func sessions(of user: UserID) async throws -> [Session] {
        let now = Date.nowMilliseconds
        return try await database.read { sql in
            try await sql.raw(
                """
                SELECT live.family_id, live.created_at AS last_used_at, live.device, live.network,
                    (SELECT MIN(created_at) FROM refresh_tokens AS first WHERE first.family_id = live.family_id)
                        AS created_at
                FROM refresh_tokens AS live
                WHERE live.user_id = \(bind: user.description) AND live.used_at IS NULL AND live.revoked_at IS NULL
                    AND live.expires_at > \(bind: now)
                ORDER BY live.created_at DESC, live.family_id
                """
            ).all().map { row in
                Session(
                    id: try row.decode(column: "family_id", as: String.self),
                    device: try row.decode(column: "device", as: String?.self),
                    network: try row.decode(column: "network", as: String?.self),
                    createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
                    lastUsedAt: Date(millisecondsSince1970: try row.decode(column: "last_used_at", as: Int64.self)))
            }
        }
    }

    /// Ends `user`'s session `family`: its tokens revoked, and its access tokens refused until
    /// `until`, when the last of them expires (`Sessions`). False when the user has no such
    /// session standing.
    func end(family: String, of user: UserID, accessTokensUntil until: Int64, in transaction: Transaction)
        async throws -> Bool
    {
        try await transaction.lock(.sessions(of: user.description))
        guard
            try await transaction.sql.raw(
                """
                SELECT 1 AS live FROM refresh_tokens WHERE family_id = \(bind: family)
                AND user_id = \(bind: user.description) AND revoked_at IS NULL
                """
            ).first() != nil
        else { return false }
        try await revoke(family: family, in: transaction)
        try await transaction.sql.raw(
            """
            INSERT INTO ended_sessions (family_id, user_id, expires_at)
            VALUES (\(bind: family), \(bind: user.description), \(bind: until))
            ON CONFLICT (family_id) DO UPDATE SET expires_at = excluded.expires_at
            """
        ).run()
        return true
    }

    /// Deletes the sessions ended alone whose access tokens have all expired; returns how many.
    func removeEndedSessions() async throws -> Int {
        try await database.deleteRows(of: "ended_sessions", where: "expires_at", below: Date.nowMilliseconds + 1)
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
            RETURNING user_id, till_id, expires_at
            """
        ).first() {
            guard let user = UserID(try spent.decode(column: "user_id", as: String.self)) else { return .invalid }
            return .valid(
                userID: user, family: token.family,
                till: try spent.decode(column: "till_id", as: String?.self).flatMap(TillID.init),
                expiresAt: try spent.decode(column: "expires_at", as: Int64.self))
        }
        let row = try await transaction.sql.raw("SELECT used_at FROM refresh_tokens WHERE token_hash = \(bind: hash)")
            .first()
        guard let row, try row.decodeNil(column: "used_at") == false else { return .invalid }
        try await revoke(family: token.family, in: transaction)
        return .reused
    }

    /// Ends the session of the token with this hash (a logout), when it is `user`'s; other
    /// tokens are ignored.
    func endFamily(of hash: String, user: UserID, accessTokensUntil until: Int64, in transaction: Transaction)
        async throws
    {
        guard
            let family = try await transaction.sql.raw(
                """
                SELECT family_id FROM refresh_tokens WHERE token_hash = \(bind: hash)
                AND user_id = \(bind: user.description)
                """
            ).first()?.decode(column: "family_id", as: String.self)
        else { return }
        _ = try await end(family: family, of: user, accessTokensUntil: until, in: transaction)
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

    /// Ends every session opened on `till` (revoked): as `end(family:of:accessTokensUntil:in:)`
    /// ends each; returns the users whose sessions ended.
    func endSessions(on till: TillID, accessTokensUntil until: Int64, in transaction: Transaction) async throws
        -> Set<UserID>
    {
        let rows = try await transaction.sql.raw(
            """
            SELECT DISTINCT family_id, user_id FROM refresh_tokens
            WHERE till_id = \(bind: till.description) AND revoked_at IS NULL
            """
        ).all()
        var users = Set<UserID>()
        for row in rows {
            guard let user = UserID(try row.decode(column: "user_id", as: String.self)) else { continue }
            if try await end(
                family: try row.decode(column: "family_id", as: String.self), of: user, accessTokensUntil: until,
                in: transaction)
            {
                users.insert(user)
            }
        }
        return users
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
