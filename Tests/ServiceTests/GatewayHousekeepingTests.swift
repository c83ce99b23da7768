import Foundation
import Gateway
import SQLKit
import Storage
import TestSupport
import Testing

@Suite("Gateway housekeeping")
struct GatewayHousekeepingTests {
    @Test(
        "refresh tokens go once their whole family has expired; a live family keeps its spent tokens",
        arguments: TestDatabase.kinds)
    func refreshTokens(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "gateway", GatewayService.migrations)
            let now = Date.nowMilliseconds
            let tokens: [(hash: String, family: String, expiresAt: Int64, usedAt: Int64?)] = [
                ("live-spent", "live", now - 1_000, now - 5_000),
                ("live-current", "live", now + 60_000, nil),
                ("gone-spent", "gone", now - 9_000, now - 8_000),
                ("gone-last", "gone", now - 1_000, nil),
            ]
            try await database.transaction { transaction in
                for token in tokens {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, used_at)
                        VALUES (\(bind: token.hash), \(bind: token.family), 'user', \(bind: token.expiresAt),
                            \(bind: token.usedAt))
                        """
                    ).run()
                }
            }
            let jobs = GatewayService.housekeeping(database)
            #expect(
                jobs.map(\.name) == [
                    "refresh tokens", "ended sessions", "password resets", "e-mail verifications", "mail",
                ])
            #expect(try await jobs[0].run() == 2)
            let left = try await database.read { sql in
                try await sql.raw("SELECT token_hash FROM refresh_tokens ORDER BY token_hash").all()
                    .map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(left == ["live-current", "live-spent"])
        }
    }

    @Test(
        "reset and verification tokens go a day after they expired; sent and dead mail after 30 days, queued mail never",
        arguments: TestDatabase.kinds)
    func resetsAndMail(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            let database = test.database
            try await database.migrate(scope: "gateway", GatewayService.migrations)
            let (now, day) = (Date.nowMilliseconds, Int64(86_400_000))
            try await database.transaction { transaction in
                for (hash, expiresAt) in [
                    ("old", now - day - 1_000), ("recent", now - day + 60_000), ("live", now + 60_000),
                ] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO password_resets (token_hash, user_id, created_at, expires_at)
                        VALUES (\(bind: hash), 'user', \(bind: expiresAt - 1_800_000), \(bind: expiresAt))
                        """
                    ).run()
                    try await transaction.sql.raw(
                        """
                        INSERT INTO email_verifications (token_hash, subject, email, created_at, expires_at)
                        VALUES (\(bind: hash), 'user:x', 'a@b.com', \(bind: expiresAt - 1_800_000), \(bind: expiresAt))
                        """
                    ).run()
                }
                for (id, status, finishedAt) in [
                    ("sent-old", "sent", now - 31 * day), ("dead-old", "dead", now - 31 * day),
                    ("sent-recent", "sent", now - day), ("queued", "queued", nil),
                ] as [(String, String, Int64?)] {
                    try await transaction.sql.raw(
                        """
                        INSERT INTO mail_outbox (id, kind, recipient, status, attempts, next_at, created_at, finished_at)
                        VALUES (\(bind: id), 'password_reset', 'a@b.com', \(bind: status), 1, \(bind: now - 40 * day),
                            \(bind: now - 40 * day), \(bind: finishedAt))
                        """
                    ).run()
                }
            }
            let jobs = GatewayService.housekeeping(database)
            func run(_ name: String) async throws -> Int { try await #require(jobs.first { $0.name == name }).run() }
            #expect(try await run("password resets") == 1)
            #expect(try await run("e-mail verifications") == 1)
            #expect(try await run("mail") == 2)
            let left = try await database.read { sql in
                (
                    try await sql.raw("SELECT token_hash FROM password_resets ORDER BY token_hash").all()
                        .map { try $0.decode(column: "token_hash", as: String.self) },
                    try await sql.raw("SELECT token_hash FROM email_verifications ORDER BY token_hash").all()
                        .map { try $0.decode(column: "token_hash", as: String.self) },
                    try await sql.raw("SELECT id FROM mail_outbox ORDER BY id").all()
                        .map { try $0.decode(column: "id", as: String.self) }
                )
            }
            #expect(left.0 == ["live", "recent"] && left.1 == ["live", "recent"])
            #expect(left.2 == ["queued", "sent-recent"])
        }
    }
}
