import Domain
import Foundation
import SQLKit
import Storage

/// The SQL of shared tills and of users' PINs: a till's row keeps the hash of its token, never
/// the token; a user's PIN is kept beside their password hash (`pin_hash`), with the wrong PINs
/// typed in a row (`pin_failures`) and until when they are locked out (`pin_locked_until`).
struct TillsRepository: Sendable {
    let database: Database

    func insert(_ till: Till, tokenHash: String, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO tills (id, store_id, token_hash, created_at, doc)
            VALUES (\(bind: till.id.description), \(bind: till.storeID.description), \(bind: tokenHash),
                \(bind: till.createdAt.millisecondsSince1970), \(bind: try StoredDocument.text(till)))
            """
        ).run()
    }

    func find(_ id: TillID, in sql: any SQLDatabase) async throws -> Till? {
        try await sql.raw("SELECT doc FROM tills WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(Till.self, from: $0) }
    }

    /// The till whose token has this hash, when it is not revoked.
    func find(tokenHash: String) async throws -> Till? {
        try await database.read { sql in
            try await sql.raw(
                "SELECT doc FROM tills WHERE token_hash = \(bind: tokenHash) AND revoked_at IS NULL"
            ).first().map { try StoredDocument.decode(Till.self, from: $0) }
        }
    }

    /// The store's tills, revoked ones included, oldest first.
    func tills(of store: StoreID) async throws -> [Till] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT doc FROM tills WHERE store_id = \(bind: store.description) ORDER BY created_at, id"
            ).all().map { try StoredDocument.decode(Till.self, from: $0) }
        }
    }

    func revoke(_ till: Till, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE tills SET revoked_at = \(bind: till.revokedAt?.millisecondsSince1970),
                doc = \(bind: try StoredDocument.text(till))
            WHERE id = \(bind: till.id.description)
            """
        ).run()
    }

    // MARK: PINs

    /// A user's PIN as it is kept: its hash (nil without one), and until when wrong PINs lock
    /// them out (milliseconds; nil when they do not).
    struct PINState: Sendable {
        var hash: String?
        var lockedUntil: Int64?
    }

    func pin(of user: UserID, in sql: any SQLDatabase) async throws -> PINState? {
        guard
            let row = try await sql.raw(
                "SELECT pin_hash, pin_locked_until FROM users WHERE id = \(bind: user.description)"
            ).first()
        else { return nil }
        return PINState(
            hash: try row.decode(column: "pin_hash", as: String?.self),
            lockedUntil: try row.decode(column: "pin_locked_until", as: Int64?.self))
    }

    /// Sets (or with nil clears) `user`'s PIN, which also lifts a lockout.
    func setPIN(_ hash: String?, of user: UserID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE users SET pin_hash = \(bind: hash), pin_failures = 0, pin_locked_until = NULL
            WHERE id = \(bind: user.description)
            """
        ).run()
    }

    /// Counts a wrong PIN of `user` at `now`: the `Till.wrongPINsBeforeLockout`th in a row
    /// locks them out until `Till.lockout` after it (and starts the count again). Returns until
    /// when they are locked out, if they now are.
    func wrongPIN(of user: UserID, at now: Int64, in transaction: Transaction) async throws -> Int64? {
        let until = now + Int64(Till.lockout * 1000)
        let row = try await transaction.sql.raw(
            """
            UPDATE users SET
                pin_locked_until = CASE WHEN pin_failures + 1 >= \(bind: Till.wrongPINsBeforeLockout)
                    THEN \(bind: until) ELSE pin_locked_until END,
                pin_failures = CASE WHEN pin_failures + 1 >= \(bind: Till.wrongPINsBeforeLockout)
                    THEN 0 ELSE pin_failures + 1 END
            WHERE id = \(bind: user.description)
            RETURNING pin_locked_until
            """
        ).first()
        return try row?.decode(column: "pin_locked_until", as: Int64?.self).flatMap { $0 > now ? $0 : nil }
    }

    /// A right PIN: the count of wrong ones starts again.
    func rightPIN(of user: UserID, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            UPDATE users SET pin_failures = 0, pin_locked_until = NULL
            WHERE id = \(bind: user.description) AND (pin_failures > 0 OR pin_locked_until IS NOT NULL)
            """
        ).run()
    }
}
