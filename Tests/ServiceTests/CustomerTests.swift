import Foundation
import TestSupport
import Testing

/// Customers on their own: signing up, their profile and their addresses.
@Suite("Customers")
struct CustomerTests {
    let api: API

    init() throws { api = try API() }

    /// Signs a customer up with the password `password-123`; their token pair.
    func signUp(_ suite: any Suite, _ email: String, phone: String? = nil) async throws -> [String: Any] {
        var body: [String: Any] = ["email": email, "password": "password-123", "name": "Dana Levi"]
        if let phone { body["phone"] = phone }
        let reply = try await api.send(suite, "POST", "/v1/auth/register", json: body)
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object
    }

    @Test("a customer signs up and is signed in; the address is theirs alone, and no other role is had this way")
    func signUp() async throws {
        try await InProcessSuite.with { suite in
            let body: [String: Any] = [
                "email": " Dana@Example.com ", "password": "password-123", "name": "Dana Levi",
                "phone": "050-1112223", "locale": "he",
            ]
            // A role or a store is no field of a sign-up: refused, named, and no account made.
            let grab = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: body.merging(["role": "admin", "store_id": UUID().uuidString]) { $1 })
            #expect(
                grab.status == 400
                    && grab.error["details"] as? [String: String] == [
                        "role": "unknown field", "store_id": "unknown field",
                    ], "\(grab.text)")
            let reply = try await api.send(suite, "POST", "/v1/auth/register", json: body)
            #expect(reply.status == 201, "\(reply.text)")
            let user = reply.object["user"] as? [String: Any] ?? [:]
            #expect(user["role"] as? String == "customer" && (user["store_id"] == nil || user["store_id"] is NSNull))
            #expect(user["email"] as? String == "dana@example.com" && user["locale"] as? String == "he")
            let token = try #require(reply.object["access_token"] as? String)
            let me = try await api.send(suite, "GET", "/v1/me", token: token)
            #expect(me.object["phone"] as? String == "050-1112223" && me.object["role"] as? String == "customer")
            // The refresh token works as a login's does, and so does signing in.
            let refreshed = try await api.send(
                suite, "POST", "/v1/auth/refresh", json: ["refresh_token": reply.object["refresh_token"]!])
            #expect(refreshed.status == 200)
            #expect(try await api.login(suite, "dana@example.com", "password-123")["access_token"] is String)

            let taken = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "DANA@example.com", "password": "another-password", "name": "Someone"])
            #expect(taken.status == 409 && taken.error["reason"] as? String == "already_exists")
            #expect((taken.error["details"] as? [String: Any])?["email"] != nil, "\(taken.text)")

            let bad = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "not an address", "password": "short", "name": " ", "locale": "?"])
            #expect(bad.status == 400)
            let fields = (bad.error["details"] as? [String: Any]) ?? [:]
            #expect(Set(fields.keys) == ["email", "password", "name", "locale"], "\(bad.text)")
        }
    }

    @Test("sign-ups are limited per client address, with when to try again")
    func signUpLimit() async throws {
        try await InProcessSuite.with(settings: ["auth.signUpsPerAddressPerHour": "2"]) { suite in
            _ = try await signUp(suite, "one@example.com")
            _ = try await signUp(suite, "two@example.com")
            let third = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "three@example.com", "password": "password-123", "name": "Three"])
            #expect(third.status == 429 && third.error["reason"] as? String == "rate_limited", "\(third.text)")
            #expect(Int(third.headers["retry-after"] ?? "") ?? 0 > 0)
        }
    }

    @Test("a customer keeps up to 20 addresses, exactly one the default, which no one else sees")
    func addresses() async throws {
        try await InProcessSuite.with { suite in
            let dana = try #require(try await signUp(suite, "dana@example.com")["access_token"] as? String)
            let noa = try #require(try await signUp(suite, "noa@example.com")["access_token"] as? String)
            func save(_ token: String, _ fields: [String: Any]) async throws -> Reply {
                try await api.send(suite, "POST", "/v1/me/addresses", token: token, json: fields)
            }
            func list(_ token: String) async throws -> [[String: Any]] {
                try await api.send(suite, "GET", "/v1/me/addresses", token: token).object["data"] as? [[String: Any]]
                    ?? []
            }
            func defaults(_ token: String) async throws -> [String] {
                try await list(token).filter { $0["is_default"] as? Bool == true }.map { $0["id"] as! String }
            }
            #expect(try await list(dana).isEmpty)

            let missing = try await save(dana, ["label": "Home", "phone": "call me"])
            #expect(missing.status == 400)
            let fields = (missing.error["details"] as? [String: Any]) ?? [:]
            #expect(Set(fields.keys) == ["street", "building_no", "phone"], "\(missing.text)")

            let home = try await save(dana, ["label": "Home", "street": "Herzl", "building_no": "12", "floor": "3"])
            #expect(home.status == 201 && home.object["is_default"] as? Bool == true, "\(home.text)")
            let homeID = home.object["id"] as! String
            let work = try await save(
                dana,
                ["label": "Work", "street": "Allenby", "building_no": "1", "phone": "03-5551234", "is_default": true])
            let workID = work.object["id"] as! String
            #expect(try await defaults(dana) == [workID])
            let third = try await save(dana, ["street": "Dizengoff", "building_no": "100"])
            #expect(third.object["is_default"] as? Bool == false)

            // Making one the default unmakes the other; the default cannot be simply unmade.
            let moved = try await api.send(
                suite, "PATCH", "/v1/me/addresses/\(homeID)", token: dana, json: ["is_default": true, "floor": ""])
            #expect(moved.status == 200 && moved.object["floor"] == nil, "\(moved.text)")
            #expect(try await defaults(dana) == [homeID])
            let unmade = try await api.send(
                suite, "PATCH", "/v1/me/addresses/\(homeID)", token: dana, json: ["is_default": false])
            #expect(unmade.status == 400 && (unmade.error["details"] as? [String: Any])?["is_default"] != nil)
            let stale = try await api.send(
                suite, "PATCH", "/v1/me/addresses/\(homeID)", token: dana, json: ["label": "Old"],
                headers: ["If-Match": "\"1\""])
            #expect(stale.status == 409 && stale.error["reason"] as? String == "version_conflict")

            // Another customer neither sees nor changes them, and a store's staff keep none.
            #expect(try await list(noa).isEmpty)
            #expect(
                try await api.send(suite, "PATCH", "/v1/me/addresses/\(homeID)", token: noa, json: ["label": "X"])
                    .status == 404)
            #expect(try await api.send(suite, "DELETE", "/v1/me/addresses/\(homeID)", token: noa).status == 404)
            let admin = try await api.admin(suite)
            #expect(try await api.send(suite, "GET", "/v1/me/addresses", token: admin).status == 403)

            // Deleting the default makes the oldest left the default.
            #expect(try await api.send(suite, "DELETE", "/v1/me/addresses/\(homeID)", token: dana).status == 204)
            #expect(try await defaults(dana) == [workID])

            // At most 20: two left, eighteen more.
            for number in 0..<18 {
                #expect(try await save(dana, ["street": "Street \(number)", "building_no": "1"]).status == 201)
            }
            let over = try await save(dana, ["street": "One too many", "building_no": "1"])
            #expect(over.status == 422 && over.error["reason"] as? String == "too_many_addresses", "\(over.text)")
            #expect(try await list(dana).count == 20)
        }
    }

    @Test("menus carry descriptions and option groups; owners pause their store, accept automatically, set a minimum")
    func menus() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "Falafel", "address": "1 Herzl St"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@f.com", "role": "owner", "store_id": store])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "staff@f.com", "role": "staff", "store_id": store])
            let owner = try await api.token(suite, "owner@f.com")
            let staff = try await api.token(suite, "staff@f.com")
            let customer = try #require(try await signUp(suite, "dana@example.com")["access_token"] as? String)

            // A new store takes orders, accepts none by itself and has no minimum; how it accepts
            // them is its own business, not in the profile a customer reads.
            let read = try await api.send(suite, "GET", "/v1/stores/\(store)", token: customer)
            #expect(read.object["accepting_orders"] as? Bool == true && read.object["auto_accept"] == nil)
            let asOwner = try await api.send(suite, "GET", "/v1/stores/\(store)", token: owner)
            #expect(asOwner.object["auto_accept"] as? Bool == false)
            #expect(read.object["minimum_order"] as? Int == 0)
            let switches: [String: Any] = ["accepting_orders": false, "auto_accept": true, "minimum_order": 5000]
            let paused = try await api.send(suite, "PATCH", "/v1/stores/\(store)", token: owner, json: switches)
            #expect(paused.status == 200 && paused.object["accepting_orders"] as? Bool == false, "\(paused.text)")
            #expect(paused.object["auto_accept"] as? Bool == true && paused.object["minimum_order"] as? Int == 5000)
            #expect(
                try await api.send(suite, "PATCH", "/v1/stores/\(store)", token: staff, json: switches).status == 403)
            let negative = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: owner, json: ["minimum_order": -1])
            #expect(negative.status == 400 && (negative.error["details"] as? [String: Any])?["minimum_order"] != nil)

            let groups: [[String: Any]] = [
                [
                    "name": "Size", "min_select": 1, "max_select": 1,
                    "options": [["name": "Small"], ["name": "Large", "price_delta": 500]],
                ],
                [
                    "name": "Extras", "max_select": 3,
                    "options": [
                        ["name": "Tahini", "price_delta": 200], ["name": "Egg", "price_delta": 300],
                        ["name": "Pickles"], ["name": "Chips", "price_delta": 400],
                    ],
                ],
            ]
            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner,
                json: [
                    "name": "Falafel in pita", "price": 2500, "description": "Six balls, salad, tahini",
                    "option_groups": groups,
                ])
            #expect(created.status == 201, "\(created.text)")
            let made = created.object["option_groups"] as? [[String: Any]] ?? []
            #expect(made.map { $0["name"] as? String } == ["Size", "Extras"])
            #expect(
                made.map { $0["min_select"] as? Int } == [1, 0] && made.map { $0["max_select"] as? Int } == [1, 3])
            let size = made.first?["options"] as? [[String: Any]] ?? []
            #expect(size.map { $0["price_delta"] as? Int } == [0, 500] && size.allSatisfy { $0["id"] is String })

            let option = ["id": size.first?["id"] as? String ?? "", "name": "Again"]
            let bad = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner,
                json: [
                    "name": "Broken", "price": 100,
                    "option_groups": [
                        // A min_select good for its options is not blamed for the bad max_select.
                        [
                            "name": "Too many", "min_select": 2, "max_select": 3,
                            "options": [["name": "A"], ["name": "B"]],
                        ],
                        ["name": "Upside down", "min_select": 2, "max_select": 1, "options": [["name": "A"]]],
                        ["name": "Empty", "options": []],
                        ["name": "Taken", "options": [option, option]],
                    ],
                ])
            #expect(bad.status == 400)
            let problems = Set(((bad.error["details"] as? [String: Any]) ?? [:]).keys)
            #expect(
                problems == [
                    "option_groups[0].max_select", "option_groups[1].min_select", "option_groups[2].options",
                    "option_groups[3].options[1].id",
                ], "\(bad.text)")

            // The menu shows them to the customer; an empty list removes them.
            let menu = try await api.send(suite, "GET", "/v1/stores/\(store)/menu", token: customer)
            let item = ((menu.object["categories"] as? [[String: Any]])?.first?["items"] as? [[String: Any]])?.first
            #expect(item?["description"] as? String == "Six balls, salad, tahini", "\(menu.text)")
            #expect((item?["option_groups"] as? [[String: Any]])?.count == 2)
            let product = created.object["id"] as! String
            let cleared = try await api.send(
                suite, "PATCH", "/v1/products/\(product)", token: owner, json: ["option_groups": []])
            #expect(cleared.status == 200 && (cleared.object["option_groups"] as? [Any])?.isEmpty == true)
        }
    }
}
