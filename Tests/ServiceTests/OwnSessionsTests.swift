import Foundation
import Runtime
import TestSupport
import Testing

@testable import Gateway

/// A user's own sessions: each sign-in on a device listed with when and where it was used, and
/// ended alone (a lost phone), refresh and access tokens both.
@Suite("Own sessions")
struct OwnSessionsTests {
    let api: API

    init() throws { api = try API() }

    func signIn(_ suite: InProcessSuite, device: String) async throws -> (access: String, refresh: String) {
        let reply = try await api.send(
            suite, "POST", "/v1/auth/login", json: ["email": "dana@example.com", "password": "password-123"],
            headers: ["User-Agent": device])
        try #require(reply.status == 200, "\(reply.text)")
        return (
            try #require(reply.object["access_token"] as? String),
            try #require(reply.object["refresh_token"] as? String)
        )
    }

    func sessions(_ suite: InProcessSuite, _ token: String) async throws -> [[String: Any]] {
        let reply = try await api.send(suite, "GET", "/v1/me/sessions", token: token)
        try #require(reply.status == 200, "\(reply.text)")
        return reply.object["data"] as? [[String: Any]] ?? []
    }

    @Test("two devices listed, the caller's marked; one ended from the other stops at once, refresh and access both")
    func endOne() async throws {
        try await InProcessSuite.with { suite in
            let signed = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "dana@example.com", "password": "password-123", "name": "Dana Levi"],
                headers: ["User-Agent": "Orderly-iOS/1.0"])
            try #require(signed.status == 201, "\(signed.text)")
            let phone = (
                access: try #require(signed.object["access_token"] as? String),
                refresh: try #require(signed.object["refresh_token"] as? String)
            )
            let tablet = try await signIn(suite, device: "Orderly-Android/2.0")
            let listed = try await sessions(suite, phone.access)
            #expect(listed.count == 2)
            #expect(Set(listed.compactMap { $0["device"] as? String }) == ["Orderly-iOS/1.0", "Orderly-Android/2.0"])
            #expect(
                listed.filter { $0["current"] as? Bool == true }.map { $0["device"] as? String } == ["Orderly-iOS/1.0"])
            #expect(listed.allSatisfy { $0["created_at"] is String && $0["last_used_at"] is String })
            let tabletID = try #require(listed.first { $0["device"] as? String != "Orderly-iOS/1.0" }?["id"] as? String)

            // Another user cannot end it, nor can an unknown id be ended.
            _ = try await api.createUser(
                suite, admin: try await api.admin(suite), ["email": "avi@x.com", "role": "courier"])
            let avi = try await api.token(suite, "avi@x.com")
            #expect(try await api.send(suite, "DELETE", "/v1/me/sessions/\(tabletID)", token: avi).status == 404)
            #expect(try await api.send(suite, "DELETE", "/v1/me/sessions/made-up", token: phone.access).status == 404)
            #expect(try await sessions(suite, phone.access).count == 2)

            let ended = try await api.send(suite, "DELETE", "/v1/me/sessions/\(tabletID)", token: phone.access)
            #expect(ended.status == 204, "\(ended.text)")
            #expect(
                try await api.send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": tablet.refresh]).status
                    == 401)
            #expect(
                try await waitUntil { try await api.send(suite, "GET", "/v1/me", token: tablet.access).status == 401 })
            #expect(try await api.send(suite, "GET", "/v1/me", token: phone.access).status == 200)
            #expect(try await sessions(suite, phone.access).map { $0["device"] as? String } == ["Orderly-iOS/1.0"])
            #expect(
                try await api.send(suite, "DELETE", "/v1/me/sessions/\(tabletID)", token: phone.access).status == 404)

            // A refresh keeps the session, used later; a logout ends its access token too.
            let refreshed = try await api.send(
                suite, "POST", "/v1/auth/refresh", json: ["refresh_token": phone.refresh],
                headers: ["User-Agent": "Orderly-iOS/1.1"])
            let again = try #require(refreshed.object["access_token"] as? String, "\(refreshed.text)")
            let kept = try await sessions(suite, again)
            #expect(
                kept.count == 1 && kept[0]["device"] as? String == "Orderly-iOS/1.1"
                    && kept[0]["current"] as? Bool == true)
            let out = try await api.send(
                suite, "POST", "/v1/auth/logout", token: again,
                json: ["refresh_token": try #require(refreshed.object["refresh_token"] as? String)])
            #expect(out.status == 204)
            #expect(try await waitUntil { try await api.send(suite, "GET", "/v1/me", token: again).status == 401 })
        }
    }

    @Test("a session is shown its network, never its address")
    func network() throws {
        #expect(try #require(IPAddress("203.0.113.57")).network == "203.0.113.0/24")
        #expect(try #require(IPAddress("2001:db8:12:34::1")).network == "2001:db8:12::/48")
        #expect(try #require(IPAddress("::ffff:198.51.100.9")).network == "198.51.100.0/24")
        let client = SessionClient(device: String(repeating: "x", count: 300), address: IPAddress("192.0.2.1"))
        #expect(client.device?.count == 200 && client.network == "192.0.2.0/24")
        #expect(SessionClient(device: "\u{7}", address: nil).device == nil)
        #expect(SessionClient(device: "Orderly\u{202E}/2.0\u{7}", address: nil).device == "Orderly/2.0")
    }
}
