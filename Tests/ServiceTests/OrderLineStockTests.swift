import Foundation
import TestSupport
import Testing

/// Order lines of catalog products through the gateway, with every service in this process:
/// the price taken when the line is added, and the stock held for it following the line and
/// the order (the order-line saga).
@Suite("Order lines from the catalog", .serialized)
struct OrderLineStockTests {
    let api: API

    init() throws { api = try API() }

    /// A store with a stock-tracked product of 5 units at 9.00, its owner's and staff's tokens.
    func setUp(_ suite: any Suite) async throws -> (store: String, product: String, owner: String, staff: String) {
        let admin = try await api.admin(suite)
        let store = try await api.createStore(suite, admin: admin, ["name": "Corner shop"])
        for (email, role) in [("owner@s.com", "owner"), ("staff@s.com", "staff")] {
            _ = try await api.createUser(suite, admin: admin, ["email": email, "role": role, "store_id": store])
        }
        let owner = try await api.token(suite, "owner@s.com")
        let product = try await api.send(
            suite, "POST", "/v1/stores/\(store)/products", token: owner,
            json: ["name": "Cola", "price": 900, "track_stock": true, "quantity": 5])
        try #require(product.status == 201, "\(product.text)")
        return (store, product.object["id"] as! String, owner, try await api.token(suite, "staff@s.com"))
    }

    func order(_ suite: any Suite, _ token: String) async throws -> String {
        let reply = try await api.send(
            suite, "POST", "/v1/orders", token: token,
            json: API.delivery(boxes: 1).merging(["fulfillment": "pickup"]) { $1 },
            headers: ["Idempotency-Key": UUID().uuidString])
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object["id"] as! String
    }

    /// The product's quantity on hand and reserved units.
    func stock(_ suite: any Suite, _ product: String, _ token: String) async throws -> [Int] {
        let reply = try await api.send(suite, "GET", "/v1/products/\(product)", token: token)
        return [reply.object["quantity"] as? Int ?? -1, reply.object["reserved"] as? Int ?? -1]
    }

    func waitForStock(_ suite: any Suite, _ product: String, _ token: String, _ expected: [Int]) async throws -> Bool {
        try await waitUntil { try await stock(suite, product, token) == expected }
    }

    @Test("a product not for sale is one answer wherever it is sold: 422 product_inactive on a line, at the till, held")
    func notForSaleIsOneAnswer() async throws {
        try await InProcessSuite.with { suite in
            let (store, cola, owner, staff) = try await setUp(suite)
            let order = try await order(suite, staff)
            let off = try await api.send(suite, "PATCH", "/v1/products/\(cola)", token: owner, json: ["active": false])
            try #require(off.status == 200, "\(off.text)")
            func expectNotForSale(_ reply: Reply, _ field: String) {
                #expect(reply.status == 422 && reply.error["reason"] as? String == "product_inactive", "\(reply.text)")
                #expect((reply.error["details"] as? [String: Any])?[field] != nil, "\(reply.text)")
            }
            expectNotForSale(
                try await api.send(
                    suite, "POST", "/v1/orders/\(order)/items", token: staff, json: ["product_id": cola, "quantity": 1]),
                "product_id")
            expectNotForSale(
                try await api.send(
                    suite, "POST", "/v1/payments", token: owner,
                    json: [
                        "store_id": store, "method": "cash",
                        "items": [
                            ["name": "Bag", "unit_price": 100, "quantity": 1, "vat_rate_bp": 1700],
                            ["product_id": cola, "quantity": 1],
                        ],
                    ],
                    headers: ["Idempotency-Key": UUID().uuidString]),
                "items[1].product_id")
            expectNotForSale(
                try await api.send(
                    suite, "POST", "/v1/reservations", token: staff,
                    json: ["store_id": store, "lines": [["product_id": cola, "quantity": 1]]]),
                "lines[0].product_id")
            #expect(try await stock(suite, cola, owner) == [5, 0], "nothing is held for a sale refused")
        }
    }

    @Test(
        "a line takes the product's price then; its stock is held at once, follows the line and is given back on cancel"
    )
    func holdFollowsLineAndCancel() async throws {
        try await InProcessSuite.with { suite in
            let (_, cola, owner, staff) = try await setUp(suite)
            let order = try await order(suite, staff)
            let added = try await api.send(
                suite, "POST", "/v1/orders/\(order)/items", token: staff, json: ["product_id": cola, "quantity": 2])
            try #require(added.status == 201, "\(added.text)")
            let line = (added.object["items"] as? [[String: Any]])?.last ?? [:]
            #expect(line["description"] as? String == "Cola" && line["unit_price_gross"] as? Int == 900)
            #expect(line["type"] as? String == "product" && (line["reservation_ids"] as? [String])?.count == 1)
            let lineID = line["id"] as! String
            #expect(try await stock(suite, cola, staff) == [5, 2])

            // More than is available is refused at once, and holds nothing.
            let short = try await api.send(
                suite, "POST", "/v1/orders/\(order)/items", token: staff, json: ["product_id": cola, "quantity": 4])
            #expect(short.status == 409 && short.error["reason"] as? String == "insufficient_stock")
            #expect((short.error["details"] as? [String: Any])?["available"] as? Int == 3)
            let priced = try await api.send(
                suite, "POST", "/v1/orders/\(order)/items", token: staff,
                json: ["product_id": cola, "unit_price_gross": 1])
            #expect(priced.status == 400)
            #expect((priced.error["details"] as? [String: Any])?["unit_price_gross"] != nil)
            #expect(try await stock(suite, cola, staff) == [5, 2])

            // A new price leaves the line as it was added.
            let repriced = try await api.send(
                suite, "PATCH", "/v1/products/\(cola)", token: owner, json: ["price": 1500])
            #expect(repriced.status == 200)
            let reread = try await api.send(suite, "GET", "/v1/orders/\(order)", token: staff)
            #expect((reread.object["items"] as? [[String: Any]])?.first?["unit_price_gross"] as? Int == 900)
            let repricing = try await api.send(
                suite, "PATCH", "/v1/orders/\(order)/items/\(lineID)", token: staff, json: ["unit_price_gross": 1])
            #expect(repricing.status == 422 && repricing.error["reason"] as? String == "catalog_line")

            // The hold follows the line: one more at once, fewer once the catalog has seen it.
            let grown = try await api.send(
                suite, "PATCH", "/v1/orders/\(order)/items/\(lineID)", token: staff, json: ["quantity": 3])
            #expect(grown.status == 200, "\(grown.text)")
            #expect(try await stock(suite, cola, staff) == [5, 3])
            let tooMany = try await api.send(
                suite, "PATCH", "/v1/orders/\(order)/items/\(lineID)", token: staff, json: ["quantity": 9])
            #expect(tooMany.status == 409 && tooMany.error["reason"] as? String == "insufficient_stock")
            _ = try await api.send(
                suite, "PATCH", "/v1/orders/\(order)/items/\(lineID)", token: staff, json: ["quantity": 1])
            #expect(try await waitForStock(suite, cola, staff, [5, 1]))
            // The line's reservations are the order's: they end with it, not on their own.
            let reservation = (grown.object["items"] as? [[String: Any]])?.first?["reservation_ids"] as? [String] ?? []
            #expect(reservation.count == 2)
            let early = try await api.send(suite, "POST", "/v1/reservations/\(reservation[0])/release", token: staff)
            #expect(early.status == 422 && early.error["reason"] as? String == "held_for_order")
            // Once the catalog has seen the line, its reservation has no time limit.
            #expect(
                try await waitUntil {
                    let held = try await api.send(suite, "GET", "/v1/reservations/\(reservation[0])", token: staff)
                    return held.object["order_id"] as? String == order && held.object["expires_at"] == nil
                })

            let cancelled = try await api.send(
                suite, "POST", "/v1/orders/\(order)/actions/cancel", token: staff, json: ["reason": "changed mind"])
            #expect(cancelled.status == 200)
            #expect(try await waitForStock(suite, cola, staff, [5, 0]))
        }
    }

    @Test("a collected order sells what its lines hold; a removed line gives its stock back")
    func collectedOrderSells() async throws {
        try await InProcessSuite.with { suite in
            let (_, cola, _, staff) = try await setUp(suite)
            let order = try await order(suite, staff)
            for quantity in [2, 1] {
                let added = try await api.send(
                    suite, "POST", "/v1/orders/\(order)/items", token: staff,
                    json: ["product_id": cola, "quantity": quantity])
                try #require(added.status == 201, "\(added.text)")
            }
            // A repeat of the last add with its key is answered as the first time, holding nothing more.
            var answers: [Int] = []
            for _ in 0..<2 {
                let reply = try await api.send(
                    suite, "POST", "/v1/orders/\(order)/items", token: staff,
                    json: ["product_id": cola, "quantity": 2], headers: ["Idempotency-Key": "last-two"])
                answers.append(reply.status)
            }
            #expect(answers == [201, 201])
            #expect(try await stock(suite, cola, staff) == [5, 5])
            let items = try await api.send(suite, "GET", "/v1/orders/\(order)/items", token: staff)
            let lines = (items.object["data"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            for removed in lines.suffix(2) {
                _ = try await api.send(suite, "DELETE", "/v1/orders/\(order)/items/\(removed)", token: staff)
            }
            #expect(try await waitForStock(suite, cola, staff, [5, 2]))
            for action in ["accept", "start_preparing", "mark_ready", "mark_collected"] {
                let reply = try await api.send(suite, "POST", "/v1/orders/\(order)/actions/\(action)", token: staff)
                try #require(reply.status == 200, "\(action): \(reply.text)")
            }
            #expect(try await waitForStock(suite, cola, staff, [3, 0]))
            let ledger = try await api.send(suite, "GET", "/v1/products/\(cola)/stock-ledger", token: staff)
            let sale = (ledger.object["data"] as? [[String: Any]])?.last
            #expect(sale?["reason"] as? String == "sale" && sale?["adjustment"] as? Int == -2)
            #expect(sale?["reference"] as? String == order)
        }
    }
}
