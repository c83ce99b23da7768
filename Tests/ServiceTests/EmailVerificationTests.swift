import Domain
import Foundation
import SQLKit
import Storage
import TestSupport
import Testing

@testable import Gateway

/// Verified e-mail addresses: the link a sign-up is mailed, asked for again, and spent once.
/// (An application's, which approval waits for, is `ApplicationsTests`'.)
@Suite("E-mail verification")
struct EmailVerificationTests {
    let api: API

    init() throws { api = try API() }

    /// Signs up a customer; returns their access token.
    func signUp(_ suite: InProcessSuite, _ email: String, locale: String = "ar") async throws -> String {
        let reply = try await api.send(
            suite, "POST", "/v1/auth/register",
            json: ["email": email, "password": "password-123", "name": "Dana Levi", "locale": locale])
        try #require(reply.status == 201, "\(reply.text)")
        return try #require(reply.object["access_token"] as? String)
    }

    func me(_ suite: InProcessSuite, _ token: String) async throws -> [String: Any] {
        try await api.send(suite, "GET", "/v1/me", token: token).object
    }

    @Test(
        "a sign-up is mailed a link in its language; asked again, a new one; either verifies once, and the rest are spent"
    )
    func signUp() async throws {
        try await InProcessSuite.with { suite in
            let dana = try await signUp(suite, "dana@example.com")
            #expect(try await me(suite, dana)["email_verified"] as? Bool == false)
            let first = try #require(try await suite.mailed(.emailVerification, to: "dana@example.com").first)
            #expect(first.subject == "أكّد عنوان بريدك الإلكتروني في Orderly" && first.name == "Dana Levi")
            #expect(first.text.contains(first.link) && first.html.contains("dir=\"rtl\""))

            let again = try await api.send(suite, "POST", "/v1/me/verification", token: dana)
            #expect(again.status == 202 && again.body.isEmpty, "\(again.text)")
            let links = try await suite.mailed(.emailVerification, to: "dana@example.com").map {
                try InProcessSuite.token(inLink: $0.link)
            }
            #expect(links.count == 2 && Set(links).count == 2)
            let stored = try await suite.gatewayDatabase.read {
                try await $0.raw("SELECT token_hash, subject, expires_at - created_at AS life FROM email_verifications")
                    .all().map {
                        (
                            try $0.decode(column: "token_hash", as: String.self),
                            try $0.decode(column: "subject", as: String.self),
                            try $0.decode(column: "life", as: Int64.self)
                        )
                    }
            }
            #expect(Set(stored.map(\.0)) == Set(links.map(TokenIssuer.hash)), "only hashes are kept")
            #expect(stored.allSatisfy { $0.1.hasPrefix("user:") && $0.2 == 48 * 3_600_000 })

            func verify(_ token: Any?) async throws -> Reply {
                try await api.send(suite, "POST", "/v1/auth/verify-email", json: ["token": token ?? NSNull()])
            }
            for bad in [nil, "", "made-up"] as [String?] {
                let refused = try await verify(bad)
                #expect(
                    refused.status == 400 && (refused.error["details"] as? [String: Any])?.keys.sorted() == ["token"],
                    "\(refused.text)")
            }
            #expect(try await verify(links[1]).status == 204)
            #expect(try await me(suite, dana)["email_verified"] as? Bool == true)
            #expect(try await verify(links[1]).status == 400, "used")
            #expect(try await verify(links[0]).status == 400, "spent with the other")
            let done = try await api.send(suite, "POST", "/v1/me/verification", token: dana)
            #expect(done.status == 409 && done.error["reason"] as? String == "already_verified", "\(done.text)")
        }
    }

    @Test("a link is good for 48 hours; asking again is limited per account")
    func expiryAndLimit() async throws {
        try await InProcessSuite.with(settings: ["auth.verificationMailsPerAccountPerHour": "1"]) { suite in
            let dana = try await signUp(suite, "dana@example.com", locale: "en")
            #expect(try await api.send(suite, "POST", "/v1/me/verification", token: dana).status == 202)
            let limited = try await api.send(suite, "POST", "/v1/me/verification", token: dana)
            #expect(limited.status == 429 && limited.error["reason"] as? String == "rate_limited", "\(limited.text)")
            #expect(try await suite.mailed(.emailVerification, to: "dana@example.com").count == 2)

            try await suite.gatewayDatabase.transaction {
                try await $0.sql.raw("UPDATE email_verifications SET expires_at = \(bind: Date.nowMilliseconds - 1)")
                    .run()
            }
            let link = try #require(try await suite.mailed(.emailVerification, to: "dana@example.com").last?.link)
            let expired = try await api.send(
                suite, "POST", "/v1/auth/verify-email", json: ["token": try InProcessSuite.token(inLink: link)])
            #expect(expired.status == 400, "\(expired.text)")
            #expect(try await me(suite, dana)["email_verified"] as? Bool == false)
        }
    }

    @Test("a link is stored with the sign-up: a sign-up refused queues none")
    func refusedSignUp() async throws {
        try await InProcessSuite.with { suite in
            _ = try await signUp(suite, "dana@example.com")
            let taken = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "dana@example.com", "password": "password-123", "name": "Someone Else"])
            #expect(taken.status == 409)
            #expect(try await suite.mailed(.emailVerification, to: "dana@example.com").count == 1)
        }
    }
}
