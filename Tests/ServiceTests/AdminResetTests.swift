import Domain
import Foundation
import Logging
import TestSupport
import Testing

@testable import Gateway

/// `orderly-gateway admin reset-password`: the way back in for an admin who cannot sign in.
@Suite("An admin's password reset by the operator")
struct AdminResetTests {
    let api: API

    init() throws { api = try API() }

    @Test("sets the password, ends the admin's sessions and lifts the sign-in lock; only an admin's")
    func reset() async throws {
        try await InProcessSuite.with(settings: ["auth.loginAttemptsPerAccount": "3"]) { suite in
            let old = try await api.admin(suite)
            // Locked out by failed sign-ins.
            var last = 0
            for _ in 0..<4 {
                last = try await api.send(
                    suite, "POST", "/v1/auth/login", json: ["email": suite.adminEmail, "password": "not-it-at-all"]
                ).status
            }
            #expect(last == 429)
            func reset(_ email: String, _ password: String) async throws -> User {
                try await UserBook(database: suite.gatewayDatabase).resetAdminPassword(
                    email: email, password: password, redis: suite.redis, passwords: suite.passwords,
                    logger: Logger(label: "tests"))
            }
            _ = try await reset(" Admin@Example.com ", "a-new-password-2")
            let signedIn = try await api.login(suite, suite.adminEmail, "a-new-password-2")
            #expect(signedIn["access_token"] is String)
            let refused = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": suite.adminEmail, "password": suite.adminPassword])
            #expect(refused.status == 401)
            // The token from before no longer stands.
            #expect(try await waitUntil { try await api.send(suite, "GET", "/v1/me", token: old).status == 401 })

            let staff = try await api.createUser(
                suite, admin: try #require(signedIn["access_token"] as? String),
                [
                    "email": "staff@s.com", "role": "owner",
                    "store_id": try await api.createStore(
                        suite, admin: try #require(signedIn["access_token"] as? String), ["name": "Shop"]),
                ])
            await #expect(throws: OrderlyError.self) { try await reset("staff@s.com", "a-new-password-3") }
            #expect(try await api.login(suite, "staff@s.com", "password-123")["access_token"] is String, "\(staff)")
            await #expect(throws: OrderlyError.self) { try await reset(suite.adminEmail, "short") }
            await #expect(throws: OrderlyError.self) { try await reset("nobody@example.com", "long-enough-4") }
        }
    }

    @Test("the bootstrap admin is made whenever no admin is active, whoever signed up before")
    func bootstrapWhenNoAdminIsActive() async throws {
        try await InProcessSuite.with { suite in
            func bootstrap(_ email: String, _ password: String = "another-password-9") async throws
                -> UserBook.Bootstrap
            {
                try await UserBook(database: suite.gatewayDatabase).bootstrapAdmin(
                    email: email, password: password, passwords: suite.passwords)
            }
            #expect(try await bootstrap("second@example.com") == .notNeeded, "an admin is active")
            // A customer signs up, and the only admin is deactivated.
            let signed = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "dana@example.com", "password": "password-123", "name": "Dana Levi"])
            try #require(signed.status == 201, "\(signed.text)")
            let admin = try await api.admin(suite)
            let me = try await TillTests.me(api, suite, admin)
            let off = try await api.send(suite, "PATCH", "/v1/users/\(me)", token: admin, json: ["active": false])
            try #require(off.status == 200, "\(off.text)")
            #expect(try await bootstrap("dana@example.com") == .addressTaken(.customer))
            #expect(try await bootstrap(suite.adminEmail) == .reactivated)
            #expect(try await api.login(suite, suite.adminEmail, "another-password-9")["access_token"] is String)
            // Deactivated again: a new address makes a new admin.
            let again = try await api.admin(suite, password: "another-password-9")
            #expect(
                try await api.send(suite, "PATCH", "/v1/users/\(me)", token: again, json: ["active": false]).status
                    == 200)
            #expect(try await bootstrap("second@example.com") == .created)
            #expect(try await api.login(suite, "second@example.com", "another-password-9")["access_token"] is String)
        }
    }
}
