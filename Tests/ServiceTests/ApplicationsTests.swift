import Foundation
import Storage
import TestSupport
import Testing

@testable import Gateway

/// Restaurants and couriers applying to join through the gateway: made without an account,
/// decided by the platform, signed in to once approved with the password chosen.
@Suite("Applications to join")
struct ApplicationsTests {
    let api: API

    init() throws { api = try API() }

    static var restaurant: [String: Any] {
        [
            "kind": "store", "name": "Dana Levi", "email": "Dana@Falafel.test", "password": "password-123",
            "phone": "050 1234567", "locale": "he",
            "store": [
                "name": "Falafel Dana", "address": "1 Herzl St", "cuisine": "Falafel", "timezone": "Asia/Jerusalem",
            ],
        ]
    }

    @Test(
        "a restaurant applies, cannot sign in until approved, then signs in as the owner of the store it applied for",
        arguments: TestDatabase.kinds)
    func restaurant(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let applied = try await api.send(suite, "POST", "/v1/applications", json: Self.restaurant)
            #expect(applied.status == 201 && Set(applied.object.keys) == ["id", "status"], "\(applied.text)")
            #expect(applied.object["status"] as? String == "pending")
            let id = applied.object["id"] as? String ?? ""
            let again = try await api.send(suite, "POST", "/v1/applications", json: Self.restaurant)
            #expect(again.status == 409 && Self.fields(again) == ["email"], "\(again.text)")
            // Only the password chosen learns why it cannot sign in yet.
            let early = try await signIn(suite, "dana@falafel.test", "password-123")
            #expect(early.status == 403 && early.error["reason"] as? String == "application_pending", "\(early.text)")
            let guessed = try await signIn(suite, "dana@falafel.test", "not-the-password")
            #expect(guessed.status == 401 && guessed.error["reason"] as? String == "invalid_credentials")

            let admin = try await api.admin(suite)
            let pending = try await api.send(suite, "GET", "/v1/applications?status=pending", token: admin)
            #expect((pending.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            let read = try await api.send(suite, "GET", "/v1/applications/\(id)", token: admin)
            #expect((read.object["store"] as? [String: Any])?["name"] as? String == "Falafel Dana")
            #expect(!read.text.contains("password") && read.object["email_verified"] as? Bool == false)
            // Approval waits for the applicant's address to be verified. The application mailed
            // a link, and the sign-in refused for it mailed another, in the applicant's language.
            let unverified = try await api.send(suite, "POST", "/v1/applications/\(id)/approve", token: admin)
            #expect(unverified.status == 422 && unverified.error["reason"] as? String == "email_unverified")
            let links = try await suite.mailed(.emailVerification, to: "dana@falafel.test")
            #expect(links.count == 2 && links.allSatisfy { $0.subject == "אישור כתובת הדוא״ל שלך ב-Orderly" })
            #expect(links[0].link.hasPrefix("http://127.0.0.1:8080/console/#/verify-email/"))
            try await suite.verifyMailedAddress("dana@falafel.test", api: api)
            let spent = try await api.send(
                suite, "POST", "/v1/auth/verify-email", json: ["token": try InProcessSuite.token(inLink: links[0].link)]
            )
            #expect(spent.status == 400 && Self.fields(spent) == ["token"], "the other link is spent with it")
            let verified = try await api.send(suite, "GET", "/v1/applications/\(id)", token: admin)
            #expect(verified.object["email_verified"] as? Bool == true)
            let approved = try await api.send(suite, "POST", "/v1/applications/\(id)/approve", token: admin)
            #expect(approved.status == 200 && approved.object["status"] as? String == "approved", "\(approved.text)")
            let store = approved.object["store_id"] as? String ?? ""
            let twice = try await api.send(suite, "POST", "/v1/applications/\(id)/approve", token: admin)
            #expect(twice.status == 422 && twice.error["reason"] as? String == "application_decided")

            // The owner signs in with the password chosen, in the store applied for, and is told.
            let owner = try await api.login(suite, "dana@falafel.test", "password-123")
            let user = owner["user"] as? [String: Any]
            #expect(user?["role"] as? String == "owner" && user?["store_id"] as? String == store)
            #expect(user?["email_verified"] as? Bool == true)
            #expect(user?["id"] as? String == approved.object["user_id"] as? String)
            let token = owner["access_token"] as? String
            let opened = try await api.send(suite, "GET", "/v1/stores/\(store)", token: token)
            #expect(
                opened.object["name"] as? String == "Falafel Dana" && opened.object["cuisine"] as? String == "Falafel")
            #expect(
                try await waitUntil {
                    let inbox = try await api.send(suite, "GET", "/v1/notifications", token: token)
                    let told = (inbox.object["data"] as? [[String: Any]])?.first
                    return told?["type"] as? String == "application.approved"
                        && told?["title"] as? String == "ברוכים הבאים לפלטפורמה"
                })
            // Nobody but the platform reads or decides applications.
            for (method, path) in [
                ("GET", "/v1/applications"), ("GET", "/v1/applications/\(id)"),
                ("POST", "/v1/applications/\(id)/approve"),
            ] {
                let refused = try await api.send(suite, method, path, token: token)
                #expect(refused.status == 403, "\(method) \(path): \(refused.status)")
            }
        }
    }

    @Test(
        "a courier's application rejected: signing in says why; every bad field is named; an account's address is taken"
    )
    func courier() async throws {
        try await InProcessSuite.with { suite in
            let bad = try await api.send(
                suite, "POST", "/v1/applications",
                json: [
                    "kind": "courier", "name": "Avi", "email": "avi@", "password": "short", "phone": "12",
                    "store": ["name": "x", "address": "y"],
                ])
            #expect(
                bad.status == 400 && Self.fields(bad) == ["email", "password", "phone", "store", "vehicle"],
                "\(bad.text)")
            let noStore = try await api.send(
                suite, "POST", "/v1/applications",
                json: [
                    "kind": "store", "name": "Avi", "email": "avi@a.test", "password": "password-123",
                    "phone": "050 7654321", "vehicle": "scooter",
                ])
            #expect(noStore.status == 400 && Self.fields(noStore) == ["store", "vehicle"], "\(noStore.text)")
            let taken = try await api.send(
                suite, "POST", "/v1/applications",
                json: [
                    "kind": "courier", "name": "Admin", "email": suite.adminEmail, "password": "password-123",
                    "phone": "050 7654321", "vehicle": "scooter",
                ])
            #expect(taken.status == 409 && Self.fields(taken) == ["email"])

            let applied = try await api.send(
                suite, "POST", "/v1/applications",
                json: [
                    "kind": "courier", "name": "Avi", "email": "avi@a.test", "password": "password-123",
                    "phone": "050 7654321", "vehicle": "scooter",
                ])
            let id = applied.object["id"] as? String ?? ""
            let admin = try await api.admin(suite)
            let blank = try await api.send(
                suite, "POST", "/v1/applications/\(id)/reject", token: admin, json: ["reason": " "])
            #expect(blank.status == 400 && Self.fields(blank) == ["reason"])
            let rejected = try await api.send(
                suite, "POST", "/v1/applications/\(id)/reject", token: admin, json: ["reason": "No licence attached"])
            #expect(rejected.object["status"] as? String == "rejected", "\(rejected.text)")
            let signIn = try await signIn(suite, "avi@a.test", "password-123")
            #expect(signIn.status == 403 && signIn.error["reason"] as? String == "application_rejected")
            #expect((signIn.error["details"] as? [String: Any])?["reason"] as? String == "No licence attached")
            let late = try await api.send(suite, "POST", "/v1/applications/\(id)/approve", token: admin)
            #expect(late.status == 422 && late.error["reason"] as? String == "application_decided")
        }
    }

    @Test("applications are limited per client address, apart from sign-ups")
    func limit() async throws {
        try await InProcessSuite.with(settings: ["auth.signUpsPerAddressPerHour": "1"]) { suite in
            var courier: [String: Any] = [
                "kind": "courier", "name": "Avi", "email": "avi@a.test", "password": "password-123",
                "phone": "050 7654321", "vehicle": "scooter",
            ]
            #expect(try await api.send(suite, "POST", "/v1/applications", json: courier).status == 201)
            courier["email"] = "avi2@a.test"
            let over = try await api.send(suite, "POST", "/v1/applications", json: courier)
            #expect(over.status == 429 && over.error["reason"] as? String == "rate_limited", "\(over.text)")
            let signUp = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "c@a.test", "password": "password-123", "name": "Customer"])
            #expect(signUp.status == 201)
        }
    }

    func signIn(_ suite: any Suite, _ email: String, _ password: String) async throws -> Reply {
        try await api.send(suite, "POST", "/v1/auth/login", json: ["email": email, "password": password])
    }

    static func fields(_ reply: Reply) -> Set<String> {
        Set((reply.error["details"] as? [String: Any] ?? [:]).keys)
    }
}
