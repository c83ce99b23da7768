import Storage

/// The gateway's tables: users with their password hashes and token versions, refresh tokens
/// by family and by expiry, and customers' delivery addresses.
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
    ]
}
