import Domain
import Foundation
import SQLKit
import Storage

/// The gateway's SQL of password-reset tokens: stored hashed, each used once and good for 30
/// minutes; using one voids the user's others.
struct PasswordResetsRepository: Sendable {
    let database: Database

    func insert(tokenHash: String, user: UserID, lifetime: Duration, in transaction: Transaction) async throws {
        let now = Date.nowMilliseconds
        try await transaction.sql.raw(
            """
            INSERT INTO password_resets (token_hash, user_id, created_at, expires_at)
            VALUES (\(bind: tokenHash), \(bind: user.description), \(bind: now), \(bind: now + Int64(lifetime.wholeMilliseconds)))
            """
        ).run()
    }

    /// The user of the token with this hash while it is unused and unexpired; a read, for a
    /// check before the new password is hashed.
    func pending(_ tokenHash: String) async throws -> UserID? {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT user_id FROM password_resets WHERE token_hash = \(bind: tokenHash) AND used_at IS NULL
                    AND expires_at > \(bind: Date.nowMilliseconds)
                """
            ).first().flatMap { UserID(try $0.decode(column: "user_id", as: String.self)) }
        }
    }

    /// Spends the token with this hash and every other of its user, atomically: of two
    /// requests presenting one token, one gets its user and the other nil.
    func redeem(_ tokenHash: String, in transaction: Transaction) async throws -> UserID? {
        let now = Date.nowMilliseconds
        guard
            let row = try await transaction.sql.raw(
                """
                UPDATE password_resets SET used_at = \(bind: now)
                WHERE token_hash = \(bind: tokenHash) AND used_at IS NULL AND expires_at > \(bind: now)
                RETURNING user_id
                """
            ).first(),
            let user = UserID(try row.decode(column: "user_id", as: String.self))
        else { return nil }
        try await transaction.sql.raw(
            "UPDATE password_resets SET used_at = \(bind: now) WHERE user_id = \(bind: user.description) AND used_at IS NULL"
        ).run()
        return user
    }

    /// Deletes tokens expired more than a day ago; returns how many.
    func removeExpired() async throws -> Int {
        try await database.deleteRows(of: "password_resets", where: "expires_at", olderThan: .seconds(86_400))
    }
}
