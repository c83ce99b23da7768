import Domain
import SQLKit
import Storage

/// The gateway's tables: users with their password hashes and token versions, refresh tokens
/// by family and by expiry, customers' delivery addresses, applications, mail waiting to be
/// sent and password-reset tokens.
enum GatewaySchema {
    static let migrations = [
        Migration(
            1, "users and refresh tokens",
            sql: [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    email TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    role TEXT NOT NULL,
                    store_id TEXT,
                    version BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX users_by_store ON users (store_id, created_at, id)",
                "CREATE INDEX users_by_creation ON users (created_at, id)",
                """
                CREATE TABLE refresh_tokens (
                    token_hash TEXT PRIMARY KEY,
                    family_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT,
                    revoked_at BIGINT
                )
                """,
                "CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id)",
            ]),
        Migration(
            2, "refresh tokens by expiry, for housekeeping",
            sql: ["CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at)"]),
        Migration(
            3, "users' token versions",
            sql: [
                "ALTER TABLE users ADD COLUMN token_version BIGINT NOT NULL DEFAULT 0",
                "CREATE INDEX refresh_tokens_by_user ON refresh_tokens (user_id)",
            ]),
        Migration(
            4, "customers' delivery addresses",
            sql: [
                """
                CREATE TABLE addresses (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX addresses_by_user ON addresses (user_id, created_at, id)",
            ]),
        // Applications to join the platform, with the hash of the password each applicant chose.
        Migration(
            5, "applications",
            sql: [
                """
                CREATE TABLE applications (
                    id TEXT PRIMARY KEY,
                    email TEXT NOT NULL,
                    status TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX applications_by_email ON applications (email, created_at)",
                "CREATE INDEX applications_by_time ON applications (created_at, id)",
                "CREATE INDEX applications_by_status ON applications (status, created_at, id)",
            ]),
        // E-mail addresses NFKC-normalised and case-folded as they are now stored and compared
        // (`User.normalizedEmail`): before, they were only lower-cased, which leaves an address
        // such as `straße@…` unreachable by a sign-in typed now. An address whose normalised form
        // another account holds already keeps its old form (the two cannot be merged here).
        Migration(6, "e-mail addresses normalised") { transaction in
            let rows = try await transaction.sql.raw("SELECT id, email, doc FROM users").all()
            var taken = Set(try rows.map { try $0.decode(column: "email", as: String.self) })
            for row in rows {
                let email = try row.decode(column: "email", as: String.self)
                let normalized = User.normalizedEmail(email)
                guard normalized != email, !taken.contains(normalized) else { continue }
                var user = try StoredDocument.decode(User.self, from: row)
                user.email = normalized
                try await transaction.sql.raw(
                    """
                    UPDATE users SET email = \(bind: normalized), doc = \(bind: try StoredDocument.text(user))
                    WHERE id = \(bind: try row.decode(column: "id", as: String.self))
                    """
                ).run()
                taken.insert(normalized)
            }
            for row in try await transaction.sql.raw("SELECT id, email, doc FROM applications").all() {
                let email = try row.decode(column: "email", as: String.self)
                let normalized = User.normalizedEmail(email)
                guard normalized != email else { continue }
                var application = try StoredDocument.decode(JoinApplication.self, from: row)
                application.email = normalized
                try await transaction.sql.raw(
                    """
                    UPDATE applications SET email = \(bind: normalized), doc = \(bind: try StoredDocument.text(application))
                    WHERE id = \(bind: try row.decode(column: "id", as: String.self))
                    """
                ).run()
            }
        },
        // Mail waiting to be sent, written with the change it tells of (`MailOutbox`), and the
        // hashed tokens of password resets.
        Migration(
            7, "mail outbox and password resets",
            sql: [
                """
                CREATE TABLE mail_outbox (
                    id TEXT PRIMARY KEY,
                    kind TEXT NOT NULL,
                    recipient TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempts BIGINT NOT NULL,
                    next_at BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    finished_at BIGINT,
                    last_error TEXT,
                    doc TEXT
                )
                """,
                "CREATE INDEX mail_outbox_due ON mail_outbox (status, next_at)",
                "CREATE INDEX mail_outbox_finished ON mail_outbox (finished_at)",
                """
                CREATE TABLE password_resets (
                    token_hash TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT
                )
                """,
                "CREATE INDEX password_resets_by_user ON password_resets (user_id)",
                "CREATE INDEX password_resets_by_expiry ON password_resets (expires_at)",
            ]),
        // The hashed tokens of the links that verify an account's or an application's e-mail
        // address (`EmailVerifications`).
        Migration(
            8, "e-mail verifications",
            sql: [
                """
                CREATE TABLE email_verifications (
                    token_hash TEXT PRIMARY KEY,
                    subject TEXT NOT NULL,
                    email TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT
                )
                """,
                "CREATE INDEX email_verifications_by_subject ON email_verifications (subject)",
                "CREATE INDEX email_verifications_by_expiry ON email_verifications (expires_at)",
            ]),
        // Sessions a user sees and ends one by one: when, to what device and from which network
        // each refresh token was issued, and the sessions ended alone until their last access
        // token expires (`Sessions`).
        Migration(
            9, "sessions listed and ended one by one",
            sql: [
                "ALTER TABLE refresh_tokens ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE refresh_tokens ADD COLUMN device TEXT",
                "ALTER TABLE refresh_tokens ADD COLUMN network TEXT",
                """
                CREATE TABLE ended_sessions (
                    family_id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX ended_sessions_by_user ON ended_sessions (user_id, expires_at)",
                "CREATE INDEX ended_sessions_by_expiry ON ended_sessions (expires_at)",
            ]),
        // Shared tills (`TillsRepository`): the hash of each till's token, found at every PIN
        // sign-in; each user's PIN, hashed as passwords are, and the wrong PINs in a row that lock
        // them out; and the till each session was opened on, so that revoking it ends them.
        Migration(
            10, "shared tills and PINs", readers: .earlierBuilds,
            sql: [
                """
                CREATE TABLE tills (
                    id TEXT PRIMARY KEY,
                    store_id TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    doc TEXT NOT NULL
                )
                """,
                "CREATE INDEX tills_by_store ON tills (store_id, created_at, id)",
                "ALTER TABLE users ADD COLUMN pin_hash TEXT",
                "ALTER TABLE users ADD COLUMN pin_failures INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE users ADD COLUMN pin_locked_until BIGINT",
                "ALTER TABLE refresh_tokens ADD COLUMN till_id TEXT",
                "CREATE INDEX refresh_tokens_by_till ON refresh_tokens (till_id) WHERE till_id IS NOT NULL",
            ]),
    ]
}
