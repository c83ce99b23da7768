import Domain
import Foundation
import SQLKit
import Storage
import Synchronization
import TestSupport
import Testing

@testable import Gateway

@Suite("Refresh-token families")
struct RefreshTokenRaceTests {
    @Test(
        "on PostgreSQL a logout during a refresh waits for it, and revokes the token it issued",
        .enabled(if: TestDatabase.hasPostgres, TestDatabase.noPostgres))
    func logoutDuringRefresh() async throws {
        try await TestDatabase.with(.postgres) { test in
            let database = test.database
            try await database.migrate(scope: "gateway", GatewayService.migrations)
            let tokens = RefreshTokensRepository(database: database)
            let user = UserID()
            let later = Date.nowMilliseconds + 3_600_000
            try await database.transaction { transaction in
                try await tokens.insert(
                    RefreshTokenRecord(
                        hash: "first", family: "f", userID: user, expiresAt: later,
                        client: SessionClient(device: nil, address: nil)), in: transaction)
            }
            // The refresh spends the first token and issues the second, then waits, uncommitted.
            let (gate, open) = AsyncStream<Void>.makeStream()
            let issued = Atomic(false)
            let refreshing = Task {
                try await database.transaction { transaction in
                    guard case .valid = try await tokens.redeem(refreshToken: "first", in: transaction) else {
                        throw StorageError.unexpected("the first token was not valid")
                    }
                    try await tokens.insert(
                        RefreshTokenRecord(
                            hash: "second", family: "f", userID: user, expiresAt: later,
                            client: SessionClient(device: nil, address: nil)),
                        in: transaction)
                    issued.store(true, ordering: .sequentiallyConsistent)
                    for await _ in gate { break }
                }
            }
            #expect(await waitUntil { issued.load(ordering: .sequentiallyConsistent) })
            let loggedOut = Atomic(false)
            let logout = Task {
                try await database.transaction { transaction in
                    try await tokens.endFamily(
                        of: "first", user: user, accessTokensUntil: Date.nowMilliseconds + 60_000, in: transaction)
                }
                loggedOut.store(true, ordering: .sequentiallyConsistent)
            }
            // The logout is done already, or waits for a lock the refresh holds.
            #expect(
                try await waitUntil {
                    if loggedOut.load(ordering: .sequentiallyConsistent) { return true }
                    let waiting = try await database.read { sql in
                        try await sql.raw(
                            """
                            SELECT COUNT(*) AS n FROM pg_stat_activity
                            WHERE datname = current_database() AND wait_event_type = 'Lock'
                            """
                        ).first()?.decode(column: "n", as: Int.self)
                    }
                    return waiting == 1
                })
            open.finish()
            try await refreshing.value
            try await logout.value
            let unrevoked = try await database.read { sql in
                try await sql.raw("SELECT token_hash FROM refresh_tokens WHERE revoked_at IS NULL").all()
                    .map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(unrevoked.isEmpty, "a token outlived the logout: \(unrevoked)")
        }
    }
}
