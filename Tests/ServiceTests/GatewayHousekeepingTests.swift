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
        arguments: [Database.Kind.sqlite, .postgres])
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
            #expect(jobs.map(\.name) == ["refresh tokens"])
            #expect(try await jobs[0].run() == 2)
            let left = try await database.read { sql in
                try await sql.raw("SELECT token_hash FROM refresh_tokens ORDER BY token_hash").all()
                    .map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(left == ["live-current", "live-spent"])
        }
    }
}
