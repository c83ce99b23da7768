import Contracts
import Domain
import Foundation
import SQLKit
import Storage

/// The gateway's SQL of users: their records, password hashes and the version their access
/// tokens carry.
struct UsersRepository: Sendable {
    let database: Database

    func insert(_ user: User, passwordHash: String, in transaction: Transaction) async throws {
        try await transaction.sql.raw(
            """
            INSERT INTO users (id, email, password_hash, role, store_id, version, created_at, doc)
            VALUES (\(bind: user.id.description), \(bind: Self.emailColumn(user)), \(bind: passwordHash), \(bind: user.role.rawValue),
                \(bind: user.storeID?.description), \(bind: user.version), \(bind: user.createdAt.millisecondsSince1970),
                \(bind: try StoredDocument.text(user)))
            """
        ).run()
    }

    /// Replaces a user read at `previousVersion`; false when someone changed it meanwhile.
    func update(_ user: User, previousVersion: Int64, passwordHash: String?, in transaction: Transaction) async throws
        -> Bool
    {
        var query: SQLQueryString = """
            UPDATE users SET email = \(bind: Self.emailColumn(user)), role = \(bind: user.role.rawValue),
                store_id = \(bind: user.storeID?.description),
                version = \(bind: user.version), doc = \(bind: try StoredDocument.text(user))
            """
        if let passwordHash { query = query + ", password_hash = \(bind: passwordHash)" }
        query = query + " WHERE id = \(bind: user.id.description) AND version = \(bind: previousVersion) RETURNING id"
        return try await transaction.sql.raw(query).first() != nil
    }

    /// What the unique `email` column holds: the address, or for a staff member without one
    /// `pin-only:<id>`, which no address spells (no `@`) and which the profile's unknown password
    /// keeps from opening it anyway.
    static func emailColumn(_ user: User) -> String {
        user.email ?? "pin-only:\(user.id)"
    }

    func find(_ id: UserID, in sql: any SQLDatabase) async throws -> User? {
        try await sql.raw("SELECT doc FROM users WHERE id = \(bind: id.description)").first()
            .map { try StoredDocument.decode(User.self, from: $0) }
    }

    /// Whether a user has `email`.
    func isTaken(email: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM users WHERE email = \(bind: email)").first() != nil
    }

    /// The user with this e-mail address, their password hash and token version.
    func find(email: String) async throws -> (user: User, passwordHash: String, tokenVersion: Int64)? {
        try await database.read { sql in
            guard
                let row = try await sql.raw(
                    "SELECT doc, password_hash, token_version FROM users WHERE email = \(bind: email)"
                ).first()
            else { return nil }
            return (
                try StoredDocument.decode(User.self, from: row),
                try row.decode(column: "password_hash", as: String.self),
                try row.decode(column: "token_version", as: Int64.self)
            )
        }
    }

    /// The user's password hash, for checking their current password.
    func passwordHash(of id: UserID, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT password_hash FROM users WHERE id = \(bind: id.description)").first()?
            .decode(column: "password_hash", as: String.self)
    }

    /// The version access tokens of this user must carry; nil when there is no such user.
    func tokenVersion(of id: UserID, in sql: any SQLDatabase) async throws -> Int64? {
        try await sql.raw("SELECT token_version FROM users WHERE id = \(bind: id.description)").first()?
            .decode(column: "token_version", as: Int64.self)
    }

    /// What a user's access tokens are checked against (`Sessions`).
    struct TokenState: Sendable {
        var version: Int64
        /// Their sessions ended alone whose access tokens may not have expired yet.
        var endedSessions: Set<String>
    }

    /// The user's token version and the sessions ended alone that still matter; nil when there
    /// is no such user.
    func tokenState(of id: UserID, in sql: any SQLDatabase) async throws -> TokenState? {
        guard let version = try await tokenVersion(of: id, in: sql) else { return nil }
        let ended = try await sql.raw(
            """
            SELECT family_id FROM ended_sessions
            WHERE user_id = \(bind: id.description) AND expires_at > \(bind: Date.nowMilliseconds)
            """
        ).all().map { try $0.decode(column: "family_id", as: String.self) }
        return TokenState(version: version, endedSessions: Set(ended))
    }

    /// Deletes what the gateway holds of a closed account's holder beside the account itself,
    /// `erased` as it is left: their delivery addresses, refresh tokens, reset and verification
    /// tokens, the mail waiting for `email` (their address before), and the details of the
    /// application that made the account (its name and address those of `erased`, no phone).
    func eraseOwnData(of erased: User, email: String?, in transaction: Transaction) async throws {
        let email = email ?? Self.emailColumn(erased)
        let user = erased.id.description
        for statement: SQLQueryString in [
            "DELETE FROM addresses WHERE user_id = \(bind: user)",
            "DELETE FROM refresh_tokens WHERE user_id = \(bind: user)",
            "DELETE FROM password_resets WHERE user_id = \(bind: user)",
            "DELETE FROM email_verifications WHERE subject = \(bind: VerificationSubject.user(erased.id).key)",
            "DELETE FROM mail_outbox WHERE recipient = \(bind: email) AND status = 'queued'",
            "UPDATE users SET pin_hash = NULL, pin_failures = 0, pin_locked_until = NULL WHERE id = \(bind: user)",
        ] {
            try await transaction.sql.raw(statement).run()
        }
        let applications = try await transaction.sql.raw(
            "SELECT id, doc FROM applications WHERE email = \(bind: email)"
        )
        .all()
        for row in applications {
            var application = try StoredDocument.decode(JoinApplication.self, from: row)
            guard application.userID == erased.id else { continue }
            application.email = Self.emailColumn(erased)
            application.name = erased.name
            application.phone = ""
            try await transaction.sql.raw(
                """
                UPDATE applications SET email = \(bind: application.email), doc = \(bind: try StoredDocument.text(application))
                WHERE id = \(bind: application.id.description)
                """
            ).run()
        }
    }

    /// Ends every session of the user: their token version moves on, so access tokens issued
    /// before stop working, and every refresh-token family is revoked.
    func endSessions(of id: UserID, in transaction: Transaction) async throws {
        try await transaction.lock(.sessions(of: id.description))
        try await transaction.sql.raw(
            "UPDATE users SET token_version = token_version + 1 WHERE id = \(bind: id.description)"
        ).run()
        try await transaction.sql.raw(
            """
            UPDATE refresh_tokens SET revoked_at = \(bind: Date.nowMilliseconds)
            WHERE user_id = \(bind: id.description) AND revoked_at IS NULL
            """
        ).run()
    }

    /// Whether an admin's account is active: none is when the platform has no operator left.
    func hasActiveAdmin(in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT doc FROM users WHERE role = 'admin'").all()
            .contains { try StoredDocument.decode(User.self, from: $0).active }
    }

    /// The user with this e-mail address, in a transaction.
    func find(email: String, in sql: any SQLDatabase) async throws -> User? {
        try await sql.raw("SELECT doc FROM users WHERE email = \(bind: email)").first()
            .map { try StoredDocument.decode(User.self, from: $0) }
    }

    /// The users of the stores in `scope`, in creation order.
    func list(_ scope: StoreScope, role: Role?, after cursor: KeysetCursor?, limit: Int, counting: Bool) async throws
        -> Page<User>
    {
        try await database.read { sql in
            var source: SQLQueryString = "users WHERE " + scope.condition(on: "store_id")
            if let role { source = source + " AND role = \(bind: role.rawValue)" }
            let page = try await KeysetCursor.list(
                User.self, from: source, after: cursor, limit: limit, counting: counting, in: sql)
            return Page(data: page.items, nextCursor: page.next, total: page.total)
        }
    }
}
