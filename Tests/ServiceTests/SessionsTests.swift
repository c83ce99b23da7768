import Domain
import Foundation
import Logging
import Redis
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Gateway

@Suite("Sessions across gateways")
struct SessionsTests {
    @Test("a gateway forgets a user's token version as soon as another announces their sessions ended")
    func announcement() async throws {
        try await withRedis { redis, server in
            try await TestDatabase.with(.sqlite) { test in
                let database = test.database
                try await database.migrate(scope: "gateway", GatewayService.migrations)
                let users = UsersRepository(database: database)
                let now = Date.currentMillisecond
                let user = User(
                    id: UserID(), email: "c@x.com", name: "C", phone: nil, role: .courier, storeID: nil,
                    staffRole: nil, active: true, onDuty: false, version: 1, createdAt: now, updatedAt: now)
                try await database.transaction { try await users.insert(user, passwordHash: "x", in: $0) }
                let principal = Principal(userID: user.id, role: .courier, storeID: nil)
                let logger = Logger(label: "tests.sessions")
                // This gateway would trust its copy for an hour; it learns of the change at once.
                let here = Sessions(users: users, redis: redis, freshness: .seconds(3600), logger: logger)
                let there = Sessions(users: users, redis: redis, logger: logger)
                let listener = Task {
                    try await ChannelListener(redis: server.configuration, channel: Sessions.channel) {
                        here.heard($0, logger: logger)
                    }.run()
                }
                try await here.check(principal, tokenVersion: 0, session: nil)
                try await database.transaction { try await users.endSessions(of: user.id, in: $0) }
                #expect(
                    await waitUntil {
                        await there.ended(user.id)
                        return (try? await here.check(principal, tokenVersion: 0, session: nil)) == nil
                    })
                try await here.check(principal, tokenVersion: 1, session: nil)
                listener.cancel()
                try await listener.value
            }
        }
    }
}
