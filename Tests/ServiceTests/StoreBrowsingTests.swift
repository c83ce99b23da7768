import Domain
import Foundation
import Storage
import TestSupport
import Testing

/// Finding a store as a customer's app does, before and after signing up: near a place (within
/// each store's delivery area, nearest first), by the words of its name, cuisine and dishes in
/// any language its owner writes, and its public profile alone. On both databases, whose indexes
/// differ (R*Tree and FTS5; GiST and GIN).
@Suite("Stores found near a place and by their words", .serialized)
struct StoreBrowsingTests {
    let api: API

    init() throws { api = try API() }

    static let telAviv = "32.0853,34.7818"
    static let haifa = "32.7940,34.9896"

    @Test(
        "a visitor finds the stores that deliver near them by a dish in Hebrew or Arabic, with distance and fee, and reads no internals",
        arguments: TestDatabase.kinds)
    func nearAndByWords(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let admin = try await api.admin(suite)
            func store(_ fields: [String: Any]) async throws -> String {
                try await api.createStore(suite, admin: admin, fields)
            }
            func product(_ store: String, _ name: String) async throws -> String {
                let reply = try await api.send(
                    suite, "POST", "/v1/stores/\(store)/products", token: admin, json: ["name": name, "price": 4200])
                #expect(reply.status == 201, "\(reply.text)")
                return reply.object["id"] as? String ?? ""
            }
            // 600 m from the place asked about, delivering 3 km around, a dish with niqqud.
            let roma = try await store([
                "name": "פיצה רומא", "cuisine": "Italian, Pizza", "location": ["lat": 32.08, "lng": 34.78],
                "delivery_area": ["radius_m": 3000], "preparation_minutes": 25,
                "delivery_pricing": [
                    "tiers": [["max_boxes": nil, "fee": 3500, "multiplier": 1] as [String: Any?]],
                    "by_distance": [["max_m": 1000, "fee": 500] as [String: Any?], ["max_m": nil, "fee": 1500]],
                ],
            ])
            _ = try await product(roma, "שַׁקְשׁוּקָה")
            let margherita = try await product(roma, "Margherita")
            // 1.9 km away, delivering inside a polygon that holds the place.
            let deli = try await store([
                "name": "Corner Deli", "location": ["lat": 32.07, "lng": 34.79],
                "delivery_area": [
                    "polygon": [
                        ["lat": 32.07, "lng": 34.77], ["lat": 32.10, "lng": 34.77], ["lat": 32.10, "lng": 34.80],
                        ["lat": 32.07, "lng": 34.80],
                    ]
                ],
            ])
            // Near, but delivering only 500 m around itself: not to the place.
            _ = try await store([
                "name": "Far Café", "location": ["lat": 32.10, "lng": 34.80], "delivery_area": ["radius_m": 500],
            ])
            // In Haifa, in Arabic, a dish with harakat.
            let sham = try await store([
                "name": "مطعم الشام", "cuisine": "Levantine", "location": ["lat": 32.79, "lng": 34.99],
                "delivery_area": ["radius_m": 5000],
            ])
            _ = try await product(sham, "فَلَافِل")

            func ids(_ path: String, token: String? = nil) async throws -> [String] {
                let reply = try await api.send(suite, "GET", path, token: token)
                #expect(reply.status == 200, "\(path): \(reply.text)")
                return (reply.object["data"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }

            // Near Tel Aviv, without an account: the two that deliver there, nearest first.
            let near = try await api.send(suite, "GET", "/v1/stores?near=\(Self.telAviv)&count=true")
            try #require(near.status == 200, "\(near.text)")
            let found = near.object["data"] as? [[String: Any]] ?? []
            #expect(found.compactMap { $0["id"] as? String } == [roma, deli])
            #expect(near.object["total"] as? Int == 2)
            let first = try #require(found.first)
            let metres = try #require(first["distance_m"] as? Int)
            #expect((550...700).contains(metres), "\(metres)")
            #expect(first["delivery_fee"] as? Int == 4000 && found.last?["delivery_fee"] as? Int == 3500)
            #expect(first["preparation_minutes"] as? Int == 25)
            for field in ["tier", "vat_rates", "staff_refund_limit", "auto_accept", "workflow", "commission_bp"] {
                #expect(first[field] == nil, "a visitor reads \(field)")
            }
            // Page by page, from the last distance.
            let one = try await api.send(suite, "GET", "/v1/stores?near=\(Self.telAviv)&limit=1")
            let cursor = try #require(one.object["next_cursor"] as? String)
            #expect(try await ids("/v1/stores?near=\(Self.telAviv)&limit=1&cursor=\(cursor)") == [deli])

            // By a dish typed without niqqud, or its beginning; by a word of the name.
            let shakshuka = "שקשוקה".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
            #expect(try await ids("/v1/stores?near=\(Self.telAviv)&q=\(shakshuka)") == [roma])
            let prefix = "שקש".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
            #expect(try await ids("/v1/stores?q=\(prefix)") == [roma])
            #expect(try await ids("/v1/stores?q=corner+del") == [deli])
            #expect(try await ids("/v1/stores?q=MARGH") == [roma])
            #expect(try await ids("/v1/stores?q=margh+deli").isEmpty)
            // In Arabic, without harakat and with a tatweel; the Tel Aviv stores are not Haifa's.
            let falafel = "فلافـل".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
            #expect(try await ids("/v1/stores?near=\(Self.haifa)&q=\(falafel)") == [sham])
            #expect(try await ids("/v1/stores?near=\(Self.haifa)") == [sham])
            #expect(try await ids("/v1/stores?near=\(Self.telAviv)&q=\(falafel)").isEmpty)
            // By cuisine, as the store lists it, in any case.
            #expect(try await ids("/v1/stores?cuisine=PIZZA") == [roma])
            #expect(try await ids("/v1/stores?near=\(Self.telAviv)&cuisine=levantine").isEmpty)

            // The dishes follow the menu: a renamed dish is found by its new name, one taken off
            // the menu no more.
            let renamed = try await api.send(
                suite, "PATCH", "/v1/products/\(margherita)", token: admin, json: ["name": "Marinara"])
            try #require(renamed.status == 200, "\(renamed.text)")
            #expect(try await ids("/v1/stores?q=margh").isEmpty)
            #expect(try await ids("/v1/stores?q=marin") == [roma])
            let off = try await api.send(
                suite, "PATCH", "/v1/products/\(margherita)", token: admin, json: ["active": false])
            try #require(off.status == 200, "\(off.text)")
            #expect(try await ids("/v1/stores?q=marin").isEmpty)
            // A store that moves is found where it is now.
            let moved = try await api.send(
                suite, "PATCH", "/v1/stores/\(sham)", token: admin, json: ["location": ["lat": 32.095, "lng": 34.78]])
            try #require(moved.status == 200, "\(moved.text)")
            #expect(try await ids("/v1/stores?near=\(Self.haifa)").isEmpty)
            #expect(try await ids("/v1/stores?near=\(Self.telAviv)") == [roma, sham, deli])

            // One store and its menu without an account: the public profile.
            let profile = try await api.send(suite, "GET", "/v1/stores/\(roma)")
            #expect(profile.status == 200 && profile.object["name"] as? String == "פיצה רומא")
            #expect(profile.object["tier"] == nil && profile.object["vat_rates"] == nil)
            let menu = try await api.send(suite, "GET", "/v1/stores/\(roma)/menu")
            #expect(menu.status == 200 && (menu.object["store"] as? [String: Any])?["vat_rates"] == nil)
            // The platform reads it whole; a token that is no token is refused, not read as a visitor.
            let whole = try await api.send(suite, "GET", "/v1/stores/\(roma)", token: admin)
            #expect(whole.object["tier"] as? String == "free" && whole.object["vat_rates"] != nil)
            let forged = try await api.send(suite, "GET", "/v1/stores", token: "not-a-token")
            #expect(forged.status == 401)

            // Bad places and orders, each named.
            for (query, field) in [
                ("near=here", "near"), ("near=91,34", "near.lat"), ("near=32,181", "near.lng"),
                ("sort=distance", "sort"), ("sort=rating&near=\(Self.telAviv)", "sort"),
            ] {
                let bad = try await api.send(suite, "GET", "/v1/stores?\(query)")
                #expect(
                    bad.status == 400 && (bad.error["details"] as? [String: Any])?[field] != nil,
                    "\(query): \(bad.text)")
            }
            let noPlace = try await api.send(
                suite, "POST", "/v1/stores", token: admin,
                json: ["name": "Nowhere", "delivery_area": ["radius_m": 900]])
            #expect(noPlace.status == 400 && (noPlace.error["details"] as? [String: Any])?["location"] != nil)
            let badArea = try await api.send(
                suite, "PATCH", "/v1/stores/\(deli)", token: admin,
                json: ["delivery_area": ["polygon": [["lat": 32.0, "lng": 34.0]]]])
            #expect(
                badArea.status == 400 && (badArea.error["details"] as? [String: Any])?["delivery_area.polygon"] != nil,
                "\(badArea.text)")
        }
    }
}
