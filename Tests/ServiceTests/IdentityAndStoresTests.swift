import Foundation
import TestSupport
import Testing

/// Users and stores through the gateway's routes, with every service in this process.
@Suite("Users and stores", .serialized)
struct IdentityAndStoresTests {
    let api: API

    init() throws { api = try API() }

    @Test("a new password, a deactivation or a new role ends every session of the user at once")
    func endingSessions() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "A"])
            let staff = try await api.createUser(
                suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
            let staffID = staff["id"] as! String
            let session = try await api.login(suite, "staff@a.com", "password-123")
            let (access, refresh) = (session["access_token"] as! String, session["refresh_token"] as! String)

            // Their own password only with the current one.
            for (body, problem) in [
                (["password": "new-password-1"], "is required to change your own password"),
                (["password": "new-password-1", "current_password": "wrong-one"], "is not your current password"),
            ] {
                let refused = try await api.send(suite, "PATCH", "/v1/users/\(staffID)", token: access, json: body)
                #expect(refused.status == 400, "\(refused.text)")
                #expect(refused.text.contains("current_password") && refused.text.contains(problem))
            }
            let changed = try await api.send(
                suite, "PATCH", "/v1/users/\(staffID)", token: access,
                json: ["password": "new-password-1", "current_password": "password-123"])
            #expect(changed.status == 200, "\(changed.text)")
            #expect(try await api.send(suite, "GET", "/v1/me", token: access).status == 401)
            let refreshed = try await api.send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": refresh])
            #expect(refreshed.status == 401)
            let again = try await api.login(suite, "staff@a.com", "new-password-1")
            let fresh = again["access_token"] as! String
            #expect(try await api.send(suite, "GET", "/v1/me", token: fresh).status == 200)

            // A new role ends the sessions; so does a deactivation. A name does not.
            let renamed = try await api.send(suite, "PATCH", "/v1/users/\(staffID)", token: admin, json: ["name": "S"])
            #expect(renamed.status == 200)
            #expect(try await api.send(suite, "GET", "/v1/me", token: fresh).status == 200)
            let promoted = try await api.send(
                suite, "PATCH", "/v1/users/\(staffID)", token: admin, json: ["role": "manager"])
            #expect(promoted.status == 200, "\(promoted.text)")
            #expect(try await api.send(suite, "GET", "/v1/me", token: fresh).status == 401)
            let manager = try await api.login(suite, "staff@a.com", "new-password-1")["access_token"] as! String
            #expect(try await api.send(suite, "GET", "/v1/me", token: manager).status == 200)
            let off = try await api.send(suite, "PATCH", "/v1/users/\(staffID)", token: admin, json: ["active": false])
            #expect(off.status == 200)
            #expect(try await api.send(suite, "GET", "/v1/me", token: manager).status == 401)
        }
    }

    @Test("signing out everywhere ends every session of the caller and no one else's")
    func signingOutEverywhere() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            _ = try await api.createUser(suite, admin: admin, ["email": "courier@a.com", "role": "courier"])
            let phone = try await api.login(suite, "courier@a.com", "password-123")
            let tablet = try await api.login(suite, "courier@a.com", "password-123")
            let ended = try await api.send(
                suite, "DELETE", "/v1/me/sessions", token: tablet["access_token"] as? String)
            #expect(ended.status == 204 && ended.body.isEmpty, "\(ended.text)")
            for session in [phone, tablet] {
                #expect(
                    try await api.send(suite, "GET", "/v1/me", token: session["access_token"] as? String).status == 401)
                let refreshed = try await api.send(
                    suite, "POST", "/v1/auth/refresh", json: ["refresh_token": session["refresh_token"] as! String])
                #expect(refreshed.status == 401)
            }
            #expect(try await api.send(suite, "GET", "/v1/me", token: admin).status == 200)
            #expect(try await api.send(suite, "DELETE", "/v1/me/sessions").status == 401)
            let again = try await api.login(suite, "courier@a.com", "password-123")
            #expect(try await api.send(suite, "GET", "/v1/me", token: again["access_token"] as? String).status == 200)
        }
    }

    @Test("a password counts characters: 72 Hebrew letters (144 bytes) sign in in full, 73 are refused")
    func passwordLength() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let long = String(repeating: "ש", count: 71) + "א"
            let made = try await api.send(
                suite, "POST", "/v1/users", token: admin,
                json: ["email": "long@a.com", "name": "Long", "role": "courier", "password": long])
            #expect(made.status == 201, "\(made.text)")
            _ = try await api.login(suite, "long@a.com", long)
            // The same first 72 bytes with another ending is another password.
            let other = String(repeating: "ש", count: 71) + "ב"
            let wrong = try await api.send(
                suite, "POST", "/v1/auth/login", json: ["email": "long@a.com", "password": other])
            #expect(wrong.status == 401)
            let tooLong = try await api.send(
                suite, "POST", "/v1/users", token: admin,
                json: ["email": "longer@a.com", "name": "L", "role": "courier", "password": long + "א"])
            #expect(tooLong.status == 400 && (tooLong.error["details"] as? [String: String])?["password"] != nil)
        }
    }

    @Test("owners manage their store's staff and nobody else's; stale versions are refused")
    func usersAndStores() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "A"])
            let other = try await api.createStore(suite, admin: admin, ["name": "B"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store])
            let foreignStaff = try await api.createUser(
                suite, admin: admin, ["email": "staff@b.com", "role": "staff", "store_id": other])
            let owner = try await api.token(suite, "owner@a.com")

            // A store role names its store, whoever creates it (as the document states).
            let unnamed = try await api.send(
                suite, "POST", "/v1/users", token: owner,
                json: ["email": "cashier@a.com", "name": "Cash", "role": "staff", "password": "password-123"])
            #expect(unnamed.status == 400 && (unnamed.error["details"] as? [String: String])?["store_id"] != nil)
            let staff = try await api.send(
                suite, "POST", "/v1/users", token: owner,
                json: [
                    "email": "cashier@a.com", "name": "Cash", "role": "staff", "staff_role": "cashier",
                    "password": "password-123", "store_id": store,
                ])
            try #require(staff.status == 201, "\(staff.text)")
            #expect(staff.object["store_id"] as? String == store)
            let ownerByOwner = try await api.send(
                suite, "POST", "/v1/users", token: owner,
                json: ["email": "o2@a.com", "name": "O", "role": "owner", "password": "password-123"])
            #expect(ownerByOwner.status == 403)
            let duplicate = try await api.send(
                suite, "POST", "/v1/users", token: owner,
                json: [
                    "email": "CASHIER@a.com", "name": "Again", "role": "staff", "password": "password-123",
                    "store_id": store,
                ])
            #expect(duplicate.status == 409 && duplicate.error["reason"] as? String == "email_taken")

            let listed = try await api.send(suite, "GET", "/v1/users", token: owner)
            let emails = (listed.object["data"] as? [[String: Any]] ?? []).compactMap { $0["email"] as? String }
            #expect(Set(emails) == ["owner@a.com", "cashier@a.com"])
            let foreign = try await api.send(suite, "GET", "/v1/users/\(foreignStaff["id"] as! String)", token: owner)
            #expect(foreign.status == 404)

            let staffID = staff.object["id"] as! String
            let renamed = try await api.send(
                suite, "PATCH", "/v1/users/\(staffID)", token: owner, json: ["name": "Cashier One"],
                headers: ["If-Match": "\"1\""])
            #expect(renamed.status == 200 && renamed.object["version"] as? Int == 2, "\(renamed.text)")
            let stale = try await api.send(
                suite, "PATCH", "/v1/users/\(staffID)", token: owner, json: ["active": false],
                headers: ["If-Match": "\"1\""])
            #expect(stale.status == 409 && stale.error["reason"] as? String == "version_conflict")
            let cashier = try await api.token(suite, "cashier@a.com")
            let byStaff = try await api.send(
                suite, "POST", "/v1/users", token: cashier,
                json: ["email": "x@a.com", "name": "X", "role": "staff", "password": "password-123"])
            #expect(byStaff.status == 403)
            let notCourier = try await api.send(
                suite, "PUT", "/v1/couriers/me/availability", token: cashier, json: ["on_duty": true])
            #expect(notCourier.status == 403)

            // Stores: owners see and change their own; a price change reaches the next order.
            let stores = try await api.send(suite, "GET", "/v1/stores", token: owner)
            #expect((stores.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [store])
            #expect(try await api.send(suite, "GET", "/v1/stores/\(other)", token: owner).status == 404)
            let byStaffStore = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: cashier, json: ["name": "Mine"])
            #expect(byStaffStore.status == 403)
            let badTimezone = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: owner, json: ["timezone": "Mars/Olympus"])
            #expect(
                badTimezone.status == 400 && (badTimezone.error["details"] as? [String: String])?["timezone"] != nil)
            let repriced = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: owner,
                json: [
                    "delivery_pricing": [
                        "tiers": [
                            ["max_boxes": 4, "fee": 2000, "multiplier": 1],
                            ["fee": 5000, "multiplier": 2],
                        ]
                    ], "expected_version": 1,
                ])
            #expect(repriced.status == 200 && repriced.object["version"] as? Int == 2, "\(repriced.text)")
            // The orders service hears of the new prices from the catalog's event.
            let fee = try await eventually {
                let order = try await api.send(
                    suite, "POST", "/v1/orders", token: cashier, json: API.delivery(boxes: 6),
                    headers: ["Idempotency-Key": UUID().uuidString])
                return order.object["delivery_fee"] as? Int == 5000 ? 5000 : nil
            }
            #expect(fee == 5000)
        }
    }
}
