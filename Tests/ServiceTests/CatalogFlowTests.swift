import Foundation
import TestSupport
import Testing

/// Products, stock and reservations through the gateway's routes, with every service in this
/// process; every answer checked against the OpenAPI document.
@Suite("Catalog over HTTP", .serialized)
struct CatalogFlowTests {
    let api: API

    init() throws { api = try API() }

    @Test("a store's products, their stock and reservations, by role, with every bad input named")
    func productsStockAndReservations() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "Kiosk", "low_stock_default": 2])
            for (email, role) in [("owner@k.com", "owner"), ("staff@k.com", "staff")] {
                _ = try await api.createUser(suite, admin: admin, ["email": email, "role": role, "store_id": store])
            }
            _ = try await api.createUser(suite, admin: admin, ["email": "courier@k.com", "role": "courier"])
            let owner = try await api.token(suite, "owner@k.com")
            let staff = try await api.token(suite, "staff@k.com")
            let courier = try await api.token(suite, "courier@k.com")

            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner,
                json: [
                    "name": "Cola", "sku": "C-1", "barcode": "7290001", "category": "Drinks", "price": 900,
                    "track_stock": true, "quantity": 5,
                ])
            try #require(created.status == 201, "\(created.text)")
            #expect(created.headers["etag"] == "\"1\"")
            let cola = created.object["id"] as! String
            #expect(created.object["available"] as? Int == 5 && created.object["stock_status"] as? String == "in_stock")

            // Bad input, each named.
            let bad = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner,
                json: ["name": "Tea", "price": -1, "vat_rate_bp": 20_000])
            #expect(bad.status == 400)
            #expect(Set((bad.error["details"] as? [String: Any] ?? [:]).keys) == ["price", "vat_rate_bp"])
            let duplicate = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner,
                json: ["name": "Cola again", "sku": "C-1", "price": 900])
            #expect(duplicate.status == 409 && (duplicate.error["details"] as? [String: Any])?["sku"] != nil)
            let byStaff = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: staff, json: ["name": "Tea", "price": 500])
            #expect(byStaff.status == 403)
            let unknownCategory = try await api.send(
                suite, "GET", "/v1/stores/\(store)/products?category=Toys", token: staff)
            #expect(
                unknownCategory.status == 400
                    && (unknownCategory.error["details"] as? [String: Any])?["category"] != nil)
            let badReason = try await api.send(
                suite, "POST", "/v1/products/\(cola)/stock-adjustments", token: owner,
                json: ["adjustment": 3, "reason": "stolen"])
            #expect(badReason.status == 400 && (badReason.error["details"] as? [String: Any])?["reason"] != nil)
            let zero = try await api.send(
                suite, "POST", "/v1/reservations", token: staff,
                json: ["store_id": store, "lines": [["product_id": cola, "quantity": 0]]])
            #expect(zero.status == 400 && (zero.error["details"] as? [String: Any])?["lines[0].quantity"] != nil)
            let mixed = try await api.send(
                suite, "GET", "/v1/stores/\(store)/products?since=0&category=Drinks", token: staff)
            #expect(mixed.status == 400 && (mixed.error["details"] as? [String: Any])?["since"] != nil)

            // Staff read; couriers see products only through the menu.
            let listed = try await api.send(
                suite, "GET", "/v1/stores/\(store)/products?q=col&stock_status=in_stock,low", token: staff)
            #expect((listed.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [cola])
            #expect(try await api.send(suite, "GET", "/v1/products/\(cola)", token: courier).status == 404)

            let repriced = try await api.send(
                suite, "PATCH", "/v1/products/\(cola)", token: owner, json: ["price": 950],
                headers: ["If-Match": "\"1\""])
            #expect(repriced.status == 200 && repriced.object["price"] as? Int == 950, "\(repriced.text)")
            let stale = try await api.send(
                suite, "PATCH", "/v1/products/\(cola)", token: owner, json: ["price": 990],
                headers: ["If-Match": "\"1\""])
            #expect(stale.status == 409 && stale.error["reason"] as? String == "version_conflict")

            let restock = try await api.send(
                suite, "POST", "/v1/products/\(cola)/stock-adjustments", token: owner,
                json: ["adjustment": 5, "reason": "restock", "client_created_at": "2026-11-25T08:00:00Z"],
                headers: ["Idempotency-Key": "restock-1"])
            #expect(restock.status == 201 && restock.object["new_quantity"] as? Int == 10, "\(restock.text)")
            let again = try await api.send(
                suite, "POST", "/v1/products/\(cola)/stock-adjustments", token: owner,
                json: ["adjustment": 5, "reason": "restock", "client_created_at": "2026-11-25T08:00:00Z"],
                headers: ["Idempotency-Key": "restock-1"])
            #expect(again.status == 201 && again.object["id"] as? String == restock.object["id"] as? String)

            // Hold 8 of 10, fail to hold 3 more, sell the 8.
            let held = try await api.send(
                suite, "POST", "/v1/reservations", token: staff,
                json: ["store_id": store, "lines": [["product_id": cola, "quantity": 8]], "reference": "sale-1"])
            try #require(held.status == 201, "\(held.text)")
            let reservation = held.object["id"] as! String
            let short = try await api.send(
                suite, "POST", "/v1/reservations", token: staff,
                json: ["store_id": store, "lines": [["product_id": cola, "quantity": 3]]])
            #expect(short.status == 409 && short.error["reason"] as? String == "insufficient_stock")
            let named = (short.error["details"] as? [String: Any])?["products"] as? [[String: Any]]
            #expect(named?.first?["product_id"] as? String == cola && named?.first?["available"] as? Int == 2)
            let sold = try await api.send(suite, "POST", "/v1/reservations/\(reservation)/commit", token: staff)
            #expect(sold.status == 200 && sold.object["status"] as? String == "committed")
            let closed = try await api.send(suite, "POST", "/v1/reservations/\(reservation)/release", token: staff)
            #expect(closed.status == 409 && closed.error["reason"] as? String == "reservation_closed")
            let product = try await api.send(suite, "GET", "/v1/products/\(cola)", token: staff)
            #expect(product.object["quantity"] as? Int == 2 && product.object["reserved"] as? Int == 0)
            #expect(product.object["stock_status"] as? String == "low")

            // Running low is told to the store's owner and managers, once.
            func stockNotices(_ token: String) async throws -> [String] {
                let inbox = try await api.send(suite, "GET", "/v1/notifications", token: token)
                return (inbox.object["data"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
                    .filter { $0.hasPrefix("stock.") }
            }
            #expect(try await waitUntil { try await stockNotices(owner) == ["stock.low"] })
            #expect(try await stockNotices(staff).isEmpty)

            let ledger = try await api.send(suite, "GET", "/v1/products/\(cola)/stock-ledger?limit=2", token: staff)
            #expect(
                (ledger.object["data"] as? [[String: Any]])?.compactMap { $0["reason"] as? String } == [
                    "initial", "restock",
                ])
            let cursor = try #require(ledger.object["next_cursor"] as? String)
            let rest = try await api.send(
                suite, "GET", "/v1/products/\(cola)/stock-ledger?cursor=\(cursor)", token: staff)
            let sale = (rest.object["data"] as? [[String: Any]])?.first
            #expect(sale?["reason"] as? String == "sale" && sale?["reference"] as? String == "sale-1")

            let feed = try await api.send(suite, "GET", "/v1/stores/\(store)/products?since=0", token: staff)
            #expect((feed.object["data"] as? [[String: Any]])?.count == 1 && feed.object["has_more"] as? Bool == false)
        }
    }

    @Test("customers find the stores open now and read their menus; staff read only their own store's")
    func menusAndOpenStores() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let allWeek = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map {
                ["day": $0, "open": "00:00", "close": "24:00"]
            }
            let open = try await api.createStore(
                suite, admin: admin, ["name": "Falafel", "cuisine": "Middle Eastern", "opening_hours": allWeek])
            let closed = try await api.createStore(suite, admin: admin, ["name": "No hours"])
            let badHours = try await api.send(
                suite, "PATCH", "/v1/stores/\(closed)", token: admin,
                json: ["opening_hours": [["day": "mon", "open": "10:00", "close": "10:00"]]])
            #expect(badHours.status == 400)
            #expect((badHours.error["details"] as? [String: Any])?["opening_hours[0].close"] != nil)
            _ = try await api.createUser(suite, admin: admin, ["email": "customer@c.com", "role": "customer"])
            _ = try await api.createUser(suite, admin: admin, ["email": "courier@c.com", "role": "courier"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "staff@n.com", "role": "staff", "store_id": closed])
            let customer = try await api.token(suite, "customer@c.com")
            for product in [
                ["name": "Pita", "category": "Mains", "price": 500, "track_stock": true],
                ["name": "Falafel plate", "category": "Mains", "price": 3500],
                ["name": "Old soup", "category": "Mains", "price": 2000, "active": false],
                ["name": "Water", "price": 600],
            ] as [[String: Any]] {
                let created = try await api.send(
                    suite, "POST", "/v1/stores/\(open)/products", token: admin, json: product)
                try #require(created.status == 201, "\(created.text)")
            }

            let listed = try await api.send(suite, "GET", "/v1/stores?open_now=true", token: customer)
            let stores = listed.object["data"] as? [[String: Any]] ?? []
            #expect(stores.compactMap { $0["id"] as? String } == [open])
            #expect(
                stores.first?["is_open_now"] as? Bool == true && stores.first?["cuisine"] as? String == "Middle Eastern"
            )
            let all = try await api.send(suite, "GET", "/v1/stores", token: customer)
            #expect((all.object["data"] as? [[String: Any]])?.count == 2)

            for reader in [customer, try await api.token(suite, "courier@c.com")] {
                let menu = try await api.send(suite, "GET", "/v1/stores/\(open)/menu", token: reader)
                try #require(menu.status == 200, "\(menu.text)")
                let categories = menu.object["categories"] as? [[String: Any]] ?? []
                #expect(categories.map { $0["name"] as? String } == ["Mains", nil])
                let mains = categories.first?["items"] as? [[String: Any]] ?? []
                #expect(mains.compactMap { $0["name"] as? String } == ["Falafel plate", "Pita"])
                #expect(mains.compactMap { $0["can_sell"] as? Bool } == [true, false])
            }
            let staff = try await api.token(suite, "staff@n.com")
            #expect(try await api.send(suite, "GET", "/v1/stores/\(open)/menu", token: staff).status == 404)
        }
    }
}
