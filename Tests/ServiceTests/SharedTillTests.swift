import Foundation
import Storage
import TestSupport
import Testing

/// A shared till through the gateway: registered by the store's owner, signed in on by PIN, handed
/// over to a colleague, locked after wrong PINs, and revoked, which ends its sessions.
@Suite("The shared till")
struct SharedTillTests {
    let api: API
    let payments: PaymentFlowTests

    init() throws {
        api = try API()
        payments = try PaymentFlowTests()
    }

    @Test(
        "a barista signs in on the till with a PIN and takes a payment, a colleague takes over; wrong PINs lock; revoking ends its sessions",
        arguments: TestDatabase.kinds)
    func pinSessions(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let (store, product, barista) = try await PaymentFlowTests.setUp(api, suite, quantity: 20)
            let admin = try await api.admin(suite)
            let other = try await api.createStore(suite, admin: admin, ["name": "Elsewhere"])
            for (email, role, at) in [
                ("owner@k.com", "owner", store), ("colleague@k.com", "staff", store), ("far@k.com", "staff", other),
                ("owner@e.com", "owner", other),
            ] {
                _ = try await api.createUser(suite, admin: admin, ["email": email, "role": role, "store_id": at])
            }
            let owner = try await api.token(suite, "owner@k.com")
            let colleague = try await api.token(suite, "colleague@k.com")
            let far = try await api.token(suite, "far@k.com")
            let baristaID = try await TillTests.me(api, suite, barista)
            let colleagueID = try await TillTests.me(api, suite, colleague)
            let farID = try await TillTests.me(api, suite, far)

            // The owner registers the till: its token is shown this once.
            #expect(
                try await api.send(suite, "POST", "/v1/stores/\(store)/tills", token: barista, json: ["name": "x"])
                    .status == 403)
            #expect(
                try await api.send(
                    suite, "POST", "/v1/stores/\(store)/tills", token: try await api.token(suite, "owner@e.com"),
                    json: ["name": "x"]
                ).status == 404)
            let registered = try await api.send(
                suite, "POST", "/v1/stores/\(store)/tills", token: owner, json: ["name": "Front counter"])
            try #require(registered.status == 201, "\(registered.text)")
            let till = try #require(registered.object["token"] as? String)
            let tillID = try #require(registered.object["id"] as? String)
            #expect(till.hasPrefix("till_") && registered.object["store_id"] as? String == store)
            let listed = try await api.send(suite, "GET", "/v1/stores/\(store)/tills", token: owner)
            #expect((listed.object["data"] as? [[String: Any]])?.map { $0["token"] == nil } == [true])

            // PINs: one's own, or a colleague's by the owner; 4 to 6 digits.
            func setPIN(_ user: String, _ pin: String, by token: String) async throws -> Reply {
                try await api.send(suite, "PUT", "/v1/users/\(user)/pin", token: token, json: ["pin": pin])
            }
            #expect(try await setPIN(baristaID, "2468", by: barista).status == 204)
            #expect(try await setPIN(colleagueID, "1357", by: owner).status == 204)
            #expect(try await setPIN(farID, "9999", by: far).status == 204)
            // A colleague is not the barista's to see, so not to change.
            #expect(try await setPIN(colleagueID, "0000", by: barista).status == 404)
            let weak = try await setPIN(baristaID, "24a8", by: barista)
            #expect(weak.status == 400 && TillTests.fields(weak) == ["pin"], "\(weak.text)")

            func signIn(_ user: String, _ pin: String, till token: String? = till) async throws -> Reply {
                try await api.send(
                    suite, "POST", "/v1/auth/pin", json: ["user_id": user, "pin": pin],
                    headers: token.map { ["X-Till-Token": $0] } ?? [:])
            }
            // The barista signs in and takes a payment; the colleague takes over on the same till.
            let first = try await signIn(baristaID, "2468")
            try #require(first.status == 200, "\(first.text)")
            let baristaSession = try #require(first.object["access_token"] as? String)
            let paid = try await payments.ringUp(suite, baristaSession, product: product, units: 1)
            #expect(paid.status == 201 && paid.object["staff_id"] as? String == baristaID, "\(paid.text)")
            try await PaymentFlowTests.clockIn(api, suite, colleague)
            let second = try await signIn(colleagueID, "1357")
            try #require(second.status == 200, "\(second.text)")
            let colleagueSession = try #require(second.object["access_token"] as? String)
            let theirs = try await payments.ringUp(suite, colleagueSession, product: product, units: 1)
            #expect(theirs.status == 201 && theirs.object["staff_id"] as? String == colleagueID, "\(theirs.text)")
            let sessions = try await api.send(suite, "GET", "/v1/me/sessions", token: baristaSession)
            #expect(
                (sessions.object["data"] as? [[String: Any]])?.contains {
                    $0["device"] as? String == "Till: Front counter"
                }
                    == true, "\(sessions.text)")

            // Every wrong thing is one answer: no till, an unknown one, another store's person.
            for reply in [
                try await signIn(baristaID, "2468", till: nil), try await signIn(baristaID, "2468", till: "till_nope"),
                try await signIn(farID, "9999"), try await signIn(UUID().uuidString.lowercased(), "1234"),
            ] {
                #expect(
                    reply.status == 401 && reply.error["reason"] as? String == "invalid_credentials", "\(reply.text)")
            }
            let malformed = try await signIn(baristaID, "12")
            #expect(malformed.status == 400 && TillTests.fields(malformed) == ["pin"])

            // Five wrong PINs in a row lock the barista out, the right one too, until the owner
            // sets a new PIN.
            for attempt in 1...5 {
                let wrong = try await signIn(baristaID, "1111")
                #expect(wrong.status == (attempt < 5 ? 401 : 429), "attempt \(attempt): \(wrong.text)")
            }
            let locked = try await signIn(baristaID, "2468")
            #expect(locked.status == 429 && (locked.error["details"] as? [String: Any])?["retry_after_seconds"] != nil)
            #expect(try await setPIN(baristaID, "8642", by: owner).status == 204)
            let refreshed = try await signIn(baristaID, "8642")
            try #require(refreshed.status == 200, "\(refreshed.text)")
            let refreshToken = try #require(refreshed.object["refresh_token"] as? String)

            // Revoked, the till signs nobody in, and its sessions end: access and refresh alike.
            let revoked = try await api.send(suite, "DELETE", "/v1/tills/\(tillID)", token: owner)
            #expect(revoked.status == 200 && revoked.object["revoked_at"] is String, "\(revoked.text)")
            #expect(try await signIn(baristaID, "8642").status == 401)
            #expect(try await api.send(suite, "GET", "/v1/me", token: colleagueSession).status == 401)
            let refresh = try await api.send(
                suite, "POST", "/v1/auth/refresh", json: ["refresh_token": refreshToken])
            #expect(refresh.status == 401, "\(refresh.text)")
            // The barista's own sign-in elsewhere stands.
            #expect(try await api.send(suite, "GET", "/v1/me", token: barista).status == 200)
        }
    }

    @Test(
        "a staff member with no e-mail and no password: made by the owner with a name, given a PIN, signs in on the till and takes a payment; no address or password opens the profile",
        arguments: TestDatabase.kinds)
    func tillOnlyProfile(kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let (store, product, _) = try await PaymentFlowTests.setUp(api, suite, quantity: 20)
            let admin = try await api.admin(suite)
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@k.com", "role": "owner", "store_id": store])
            let owner = try await api.token(suite, "owner@k.com")
            let registered = try await api.send(
                suite, "POST", "/v1/stores/\(store)/tills", token: owner, json: ["name": "Front counter"])
            let till = try #require(registered.object["token"] as? String, "\(registered.text)")

            let made = try await api.send(
                suite, "POST", "/v1/users", token: owner,
                json: ["name": "Yael", "role": "staff", "staff_role": "barista", "store_id": store])
            try #require(made.status == 201, "\(made.text)")
            #expect(made.object["email"] == nil && made.object["email_verified"] as? Bool == false)
            let yael = try #require(made.object["id"] as? String)
            // Anyone but a staff member needs both.
            let manager = try await api.send(
                suite, "POST", "/v1/users", token: owner, json: ["name": "M", "role": "manager", "store_id": store])
            #expect(manager.status == 400 && TillTests.fields(manager) == ["email", "password"], "\(manager.text)")

            #expect(
                try await api.send(suite, "PUT", "/v1/users/\(yael)/pin", token: owner, json: ["pin": "4321"]).status
                    == 204)
            let signedIn = try await api.send(
                suite, "POST", "/v1/auth/pin", json: ["user_id": yael, "pin": "4321"], headers: ["X-Till-Token": till])
            try #require(signedIn.status == 200, "\(signedIn.text)")
            let session = try #require(signedIn.object["access_token"] as? String)
            let me = try await api.send(suite, "GET", "/v1/me", token: session)
            #expect(me.status == 200 && me.object["email"] == nil && me.object["name"] as? String == "Yael")
            try await PaymentFlowTests.clockIn(api, suite, session)
            let paid = try await payments.ringUp(suite, session, product: product, units: 1)
            #expect(paid.status == 201 && paid.object["staff_id"] as? String == yael, "\(paid.text)")

            // What the profile's row holds in place of an address opens nothing, whatever the
            // password; there is no address to verify or to mail a reset link to.
            let login = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": "pin-only:\(yael)", "password": "password-123"])
            #expect(login.status == 401 && login.error["reason"] as? String == "invalid_credentials", "\(login.text)")
            let verification = try await api.send(suite, "POST", "/v1/me/verification", token: session)
            #expect(verification.status == 409, "\(verification.text)")
            let reset = try await api.send(
                suite, "POST", "/v1/auth/password-reset", json: ["email": "pin-only:\(yael)"])
            #expect(reset.status == 400 && TillTests.fields(reset) == ["email"], "\(reset.text)")
            let listed = try await api.send(suite, "GET", "/v1/users?store_id=\(store)", token: owner)
            let entry = try #require(
                (listed.object["data"] as? [[String: Any]])?.first { $0["id"] as? String == yael }, "\(listed.text)")
            #expect(entry["email"] == nil && entry["name"] as? String == "Yael")
        }
    }
}
