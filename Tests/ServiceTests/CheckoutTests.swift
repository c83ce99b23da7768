import Contracts
import Domain
import Foundation
import NIOCore
import Storage
import TestSupport
import Testing
import Wire
import WireContract

/// Customers' orders end to end: checkout priced from the menu, paying by card or in cash at the
/// door, the store's side, tracking, and what is refused.
@Suite("Checkout")
struct CheckoutTests {
    let api: API
    let payments: PaymentFlowTests

    init() throws {
        api = try API()
        payments = try PaymentFlowTests()
    }

    /// A store open all week with its owner, a courier on duty, a customer with a saved
    /// address, and a falafel (size 1..1, extras 0..3; 20 in stock) and a drink.
    struct Market {
        var admin: String
        var store: String
        var owner: String
        var courier: String
        var customer: String
        var address: String
        var falafel: String
        var drink: String
        var small: String
        var large: String
        var extras: [String]
    }

    func market(
        _ suite: any Suite, autoAccept: Bool = false, locale: String = "en", store fields: [String: Any] = [:]
    ) async throws -> Market {
        let admin = try await api.admin(suite)
        let allWeek = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map {
            ["day": $0, "open": "00:00", "close": "24:00"]
        }
        let store = try await api.createStore(
            suite, admin: admin,
            [
                "name": "Falafel Dana", "address": "1 Herzl St", "phone": "03-5551234", "opening_hours": allWeek,
                "auto_accept": autoAccept, "minimum_order": 2000,
            ].merging(fields) { $1 })
        _ = try await api.createUser(suite, admin: admin, ["email": "owner@f.com", "role": "owner", "store_id": store])
        _ = try await api.createUser(
            suite, admin: admin, ["email": "courier@f.com", "role": "courier", "name": "Avi Cohen"])
        let owner = try await api.token(suite, "owner@f.com")
        let courier = try await api.token(suite, "courier@f.com")
        let duty = try await api.send(
            suite, "PUT", "/v1/couriers/me/availability", token: courier, json: ["on_duty": true])
        try #require(duty.status == 200, "\(duty.text)")
        let signed = try await api.send(
            suite, "POST", "/v1/auth/register",
            json: [
                "email": "dana@example.com", "password": "password-123", "name": "Dana Levi", "phone": "050-1112223",
                "locale": locale,
            ])
        let customer = try #require(signed.object["access_token"] as? String, "\(signed.text)")
        let saved = try await api.send(
            suite, "POST", "/v1/me/addresses", token: customer,
            json: ["street": "Dizengoff", "building_no": "50", "apartment": "7", "city": "Tel Aviv"])
        let falafel = try await api.send(
            suite, "POST", "/v1/stores/\(store)/products", token: owner,
            json: [
                "name": "Falafel", "price": 2500, "track_stock": true, "quantity": 20,
                "option_groups": [
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
                ],
            ])
        try #require(falafel.status == 201, "\(falafel.text)")
        let drink = try await api.send(
            suite, "POST", "/v1/stores/\(store)/products", token: owner, json: ["name": "Lemonade", "price": 1200])
        let groups = falafel.object["option_groups"] as? [[String: Any]] ?? []
        let ids = groups.map { ($0["options"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
        return Market(
            admin: admin, store: store, owner: owner, courier: courier, customer: customer,
            address: try #require(saved.object["id"] as? String),
            falafel: try #require(falafel.object["id"] as? String),
            drink: try #require(drink.object["id"] as? String), small: ids[0][0], large: ids[0][1], extras: ids[1])
    }

    func checkout(_ suite: any Suite, _ market: Market, _ body: [String: Any], key: String = UUID().uuidString)
        async throws -> Reply
    {
        var draft: [String: Any] = ["store_id": market.store]
        draft.merge(body) { $1 }
        return try await api.send(
            suite, "POST", "/v1/orders", token: market.customer, json: draft, headers: ["Idempotency-Key": key])
    }

    func act(_ suite: any Suite, _ token: String, _ order: String, _ action: String, _ body: [String: Any] = [:])
        async throws -> Reply
    {
        try await api.send(suite, "POST", "/v1/orders/\(order)/actions/\(action)", token: token, json: body)
    }

    func available(_ suite: any Suite, _ market: Market) async throws -> Int {
        let reply = try await api.send(suite, "GET", "/v1/products/\(market.falafel)", token: market.owner)
        return (reply.object["quantity"] as? Int ?? 0) - (reply.object["reserved"] as? Int ?? 0)
    }

    func order(_ suite: any Suite, _ token: String, _ id: String) async throws -> [String: Any] {
        try await api.send(suite, "GET", "/v1/orders/\(id)", token: token).object
    }

    @Test(
        "a card order is priced from the menu, holds its stock, reaches the store once paid and is tracked by its customer",
        arguments: TestDatabase.kinds)
    func cardOrder(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let market = try await market(suite)
            let key = UUID().uuidString
            let cart: [String: Any] = [
                "address_id": market.address, "payment_method": "card", "tip": 500, "notes": "no onions please",
                "items": [
                    ["product_id": market.falafel, "quantity": 2, "option_ids": [market.large, market.extras[0]]],
                    ["product_id": market.drink, "notes": "cold"],
                ],
            ]
            let created = try await checkout(suite, market, cart, key: key)
            try #require(created.status == 201, "\(created.text)")
            let order = created.object
            let id = try #require(order["id"] as? String)
            // (2500 + 500 + 200) × 2 + 1200, a delivery fee for one box, the tip beside the total.
            #expect(order["items_gross"] as? Int == 7600 && order["payment_method"] as? String == "card")
            #expect(order["total"] as? Int == 7600 + (order["delivery_fee"] as? Int ?? -1))
            #expect(order["tip"] as? Int == 500 && order["customer_notes"] as? String == "no onions please")
            #expect(order["recipient_first_name"] as? String == "Dana" && order["phone"] as? String == "050-1112223")
            #expect(order["street"] as? String == "Dizengoff" && order["store_name"] as? String == "Falafel Dana")
            #expect(order["pay_by"] is String && order["allowed_actions"] as? [String] == ["cancel"])
            let lines = order["items"] as? [[String: Any]] ?? []
            #expect(lines.first?["description"] as? String == "Falafel (Large, Tahini)")
            #expect((lines.first?["options"] as? [Any])?.count == 2 && lines.last?["notes"] as? String == "cold")
            #expect(try await available(suite, market) == 18)
            // A replay answers the same order and holds nothing again.
            let replay = try await checkout(suite, market, cart, key: key)
            #expect(replay.status == 201 && replay.object["id"] as? String == id)
            #expect(try await available(suite, market) == 18)

            // Unpaid, the store cannot accept it and has not heard of it.
            let early = try await act(suite, market.owner, id, "accept")
            #expect(early.status == 422 && early.error["reason"] as? String == "payment_required", "\(early.text)")
            let inbox = try await api.send(suite, "GET", "/v1/notifications", token: market.owner)
            #expect((inbox.object["data"] as? [Any])?.isEmpty == true, "\(inbox.text)")

            // The customer pays what is left and the tip; the provider's report completes it.
            let pay = try await api.send(
                suite, "POST", "/v1/payments", token: market.customer, json: ["order_id": id, "method": "card"],
                headers: ["Idempotency-Key": UUID().uuidString])
            try #require(pay.status == 201, "\(pay.text)")
            #expect(pay.object["amount"] as? Int == (order["total"] as? Int ?? 0) + 500)
            let payment = try #require(pay.object["id"] as? String)
            let cash = try await api.send(
                suite, "POST", "/v1/payments", token: market.customer, json: ["order_id": id, "method": "cash"],
                headers: ["Idempotency-Key": UUID().uuidString])
            #expect(cash.status == 400 && (cash.error["details"] as? [String: Any])?["method"] != nil)
            let report = try await payments.report(
                suite, payment: payment, type: "completed", amount: pay.object["amount"] as? Int)
            #expect(report.status == 200, "\(report.text)")
            #expect(
                try await waitUntil {
                    try await self.order(suite, market.owner, id)["payment_status"] as? String == "paid"
                })
            #expect(
                try await waitUntil {
                    let told = try await api.send(suite, "GET", "/v1/notifications", token: market.owner)
                    return (told.object["data"] as? [Any])?.count == 1
                })
            #expect(try await act(suite, market.owner, id, "accept").status == 200)
            for action in ["start_preparing", "mark_ready"] {
                #expect(try await act(suite, market.owner, id, action).status == 200)
            }
            #expect(try await act(suite, market.courier, id, "claim").status == 200)
            #expect(try await act(suite, market.courier, id, "pick_up").status == 200)
            let collected = try await act(suite, market.courier, id, "deliver", ["cash_collected": 100])
            #expect(collected.status == 400, "a paid card order takes no cash: \(collected.text)")
            #expect(try await act(suite, market.courier, id, "deliver").status == 200)

            // The customer sees their order with the store's phone and the courier's first name,
            // never the store's own notes, and its whole timeline.
            let tracked = try await self.order(suite, market.customer, id)
            #expect(tracked["status"] as? String == "delivered" && tracked["store_phone"] as? String == "03-5551234")
            #expect(tracked["courier_first_name"] as? String == "Avi")
            let history = try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: market.customer)
            let changes = (history.object["data"] as? [[String: Any]] ?? []).map { $0["change"] as? String ?? "" }
            #expect(
                changes == [
                    "created", "payment_completed", "accept", "start_preparing", "mark_ready", "claim", "pick_up",
                    "deliver",
                ], "\(history.text)")
            let mine = try await api.send(suite, "GET", "/v1/orders?status=delivered", token: market.customer)
            #expect((mine.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            // Another customer neither reads nor lists it.
            let other = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "eli@example.com", "password": "password-123", "name": "Eli"])
            let eli = try #require(other.object["access_token"] as? String)
            #expect(try await api.send(suite, "GET", "/v1/orders/\(id)", token: eli).status == 404)
            #expect(try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: eli).status == 404)
            let theirs = try await api.send(suite, "GET", "/v1/orders", token: eli)
            #expect((theirs.object["data"] as? [Any])?.isEmpty == true)
            // Notified of every status change, in their locale, exactly once each.
            #expect(
                try await waitUntil {
                    let told = try await api.send(suite, "GET", "/v1/notifications?limit=100", token: market.customer)
                    return (told.object["data"] as? [Any])?.count == 6
                })
            // The tip is the courier's, with the fee, today and in total.
            let day = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-86_400))
            let tomorrow = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400))
            let earnings = try await api.send(
                suite, "GET", "/v1/couriers/me/earnings?from=\(day)&to=\(tomorrow)", token: market.courier)
            let total = (earnings.object["totals"] as? [[String: Any]])?.first ?? [:]
            #expect(total["tips"] as? Int == 500 && total["cash_collected"] as? Int == 0, "\(earnings.text)")
            #expect((earnings.object["days"] as? [Any])?.count == 1)
            // The stock held for the order is sold.
            #expect(
                try await waitUntil {
                    let product = try await api.send(
                        suite, "GET", "/v1/products/\(market.falafel)", token: market.owner)
                    return product.object["quantity"] as? Int == 18 && product.object["reserved"] as? Int == 0
                })
        }
    }

    @Test(
        "cash on delivery: accepted by itself, the courier collects at least what is owed, which becomes a paid receipt",
        arguments: TestDatabase.kinds)
    func cashOnDelivery(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let market = try await market(suite, autoAccept: true)
            let created = try await checkout(
                suite, market,
                [
                    "address": ["street": "Allenby", "building_no": "3", "phone": "052-9998887"],
                    "payment_method": "cash_on_delivery", "tip": 300,
                    "items": [["product_id": market.falafel, "option_ids": [market.small]]],
                ])
            try #require(created.status == 201, "\(created.text)")
            let id = try #require(created.object["id"] as? String)
            #expect(
                created.object["status"] as? String == "accepted" && created.object["phone"] as? String == "052-9998887"
            )
            let total = try #require(created.object["total"] as? Int)
            #expect(try await act(suite, market.owner, id, "start_preparing").status == 200)
            #expect(try await act(suite, market.owner, id, "mark_ready").status == 200)
            #expect(try await act(suite, market.courier, id, "claim").status == 200)
            #expect(try await act(suite, market.courier, id, "pick_up").status == 200)
            let short = try await act(suite, market.courier, id, "deliver", ["cash_collected": total])
            #expect(short.status == 422 && short.error["reason"] as? String == "cash_required", "\(short.text)")
            #expect((short.error["details"] as? [String: Any])?["cash_collected"] != nil)
            let delivered = try await act(suite, market.courier, id, "deliver", ["cash_collected": total + 500])
            #expect(delivered.status == 200, "\(delivered.text)")
            #expect(
                try await waitUntil {
                    try await self.order(suite, market.owner, id)["payment_status"] as? String == "paid"
                })
            let paid = try await api.send(suite, "GET", "/v1/stores/\(market.store)/payments", token: market.owner)
            let payment = (paid.object["data"] as? [[String: Any]])?.first ?? [:]
            #expect(payment["method"] as? String == "cash" && payment["amount"] as? Int == total + 300)
            #expect(payment["change_due"] as? Int == 200 && payment["receipt_id"] is String, "\(paid.text)")
            let history = try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: market.customer)
            let accept = (history.object["data"] as? [[String: Any]])?.first { $0["change"] as? String == "accept" }
            #expect(accept?["actor_id"] == nil && accept?["details"] != nil, "accepted by the server")
            let earnings = try await api.send(
                suite, "GET",
                "/v1/couriers/me/earnings?from=\(ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60)))"
                    + "&to=\(ISO8601DateFormatter().string(from: Date().addingTimeInterval(60)))",
                token: market.courier)
            let sums = (earnings.object["totals"] as? [[String: Any]])?.first ?? [:]
            #expect(sums["cash_collected"] as? Int == total + 500 && sums["tips"] as? Int == 300, "\(earnings.text)")
        }
    }

    @Test("a customer cancels while pending: the card payment is refunded in full and the stock released")
    func cancelAndRefund() async throws {
        try await InProcessSuite.with { suite in
            let market = try await market(suite)
            let created = try await checkout(
                suite, market,
                [
                    "fulfillment": "pickup", "payment_method": "card",
                    "items": [["product_id": market.falafel, "quantity": 3, "option_ids": [market.small]]],
                ])
            try #require(created.status == 201, "\(created.text)")
            let id = try #require(created.object["id"] as? String)
            let pay = try await api.send(
                suite, "POST", "/v1/payments", token: market.customer, json: ["order_id": id, "method": "card"],
                headers: ["Idempotency-Key": UUID().uuidString])
            let payment = try #require(pay.object["id"] as? String, "\(pay.text)")
            let report = try await payments.report(
                suite, payment: payment, type: "completed", amount: pay.object["amount"] as? Int)
            #expect(report.status == 200, "\(report.text)")
            #expect(
                try await waitUntil {
                    try await self.order(suite, market.customer, id)["payment_status"] as? String == "paid"
                })
            #expect(try await available(suite, market) == 17)
            let cancelled = try await act(suite, market.customer, id, "cancel", ["reason": "changed my mind"])
            #expect(cancelled.status == 200, "\(cancelled.text)")
            #expect(
                try await waitUntil {
                    let read = try await api.send(suite, "GET", "/v1/payments/\(payment)", token: market.customer)
                    return read.object["status"] as? String == "refunded"
                })
            #expect(try await waitUntil { try await available(suite, market) == 20 })
            #expect(
                try await waitUntil {
                    try await self.order(suite, market.customer, id)["payment_status"] as? String == "refunded"
                })
        }
    }

    @Test("a card order nobody pays for is cancelled by the server, its stock released and its customer told")
    func unpaid() async throws {
        try await InProcessSuite.with { suite in
            let market = try await market(suite, locale: "he")
            let created = try await checkout(
                suite, market,
                [
                    "address_id": market.address, "payment_method": "card",
                    "items": [["product_id": market.falafel, "quantity": 2, "option_ids": [market.small]]],
                ])
            let id = try #require(created.object["id"] as? String, "\(created.text)")
            #expect(try await available(suite, market) == 18)
            // Its 15 minutes run out.
            try await suite.ordersDatabase.transaction { transaction in
                try await transaction.sql.raw("UPDATE orders SET pay_by = 1 WHERE id = \(bind: id)").run()
            }
            #expect(
                try await waitUntil(within: .seconds(20)) {
                    try await self.order(suite, market.customer, id)["status"] as? String == "cancelled"
                })
            #expect(try await waitUntil { try await available(suite, market) == 20 })
            let history = try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: market.customer)
            let cancel = (history.object["data"] as? [[String: Any]])?.last ?? [:]
            #expect(cancel["change"] as? String == "cancel" && cancel["actor_id"] == nil, "\(history.text)")
            #expect(
                try await waitUntil {
                    let told = try await api.send(suite, "GET", "/v1/notifications", token: market.customer)
                    return (told.object["data"] as? [Any])?.count == 1
                })
            // In their language.
            let told = try await api.send(suite, "GET", "/v1/notifications", token: market.customer)
            let title = (told.object["data"] as? [[String: Any]])?.first?["title"] as? String ?? ""
            #expect(title.contains("הזמנה"), "\(told.text)")
            let store = try await api.send(suite, "GET", "/v1/notifications", token: market.owner)
            #expect((store.object["data"] as? [Any])?.isEmpty == true, "the store never heard of it: \(store.text)")
        }
    }

    @Test(
        "stock a checkout held but never stored, and could not give back, comes back when its hold expires"
    )
    func unstoredHoldExpires() async throws {
        try await InProcessSuite.with(settings: ["order.lineHoldSeconds": "10"], ordersCatalog: LosingReleases.init) {
            suite in
            let market = try await market(suite)
            let body: [String: Any] = [
                "address_id": market.address, "payment_method": "card",
                "items": [["product_id": market.falafel, "quantity": 2, "option_ids": [market.small]]],
            ]
            let first = try await checkout(suite, market, body)
            let id = try #require(first.object["id"] as? String, "\(first.text)")
            // The same order id again: its stock is held, then the order is refused and the
            // stock's release is lost on the way to the catalog.
            let again = try await checkout(suite, market, body.merging(["id": id]) { $1 })
            #expect(again.status == 409 && again.error["reason"] as? String == "already_exists", "\(again.text)")
            #expect(try await available(suite, market) == 16)
            // The stored order keeps its 2; the other 2 come back once their 10 s are up.
            #expect(try await waitUntil(within: .seconds(20)) { try await available(suite, market) == 18 })
        }
    }

    @Test("checkout refuses a closed store, a small order, bad options, an inactive product and another's address")
    func refusals() async throws {
        try await InProcessSuite.with { suite in
            let market = try await market(suite)
            let line: [String: Any] = ["product_id": market.falafel, "option_ids": [market.small]]
            let good: [String: Any] = [
                "address_id": market.address, "payment_method": "card", "items": [line],
            ]
            let small = try await checkout(
                suite, market, good.merging(["items": [["product_id": market.drink]]]) { $1 })
            #expect(small.status == 422 && small.error["reason"] as? String == "below_minimum", "\(small.text)")
            #expect((small.error["details"] as? [String: Any])?["minimum_order"] as? Int == 2000)

            let options = try await checkout(
                suite, market,
                good.merging([
                    "items": [
                        line, ["product_id": market.falafel, "option_ids": [market.small, market.large]],
                        ["product_id": market.falafel, "option_ids": [market.small, market.address]],
                        ["product_id": market.falafel, "option_ids": [market.small] + market.extras],
                    ]
                ]) { $1 })
            #expect(options.status == 400, "\(options.text)")
            let named = Set(((options.error["details"] as? [String: Any]) ?? [:]).keys)
            #expect(named == ["items[1].option_ids", "items[2].option_ids", "items[3].option_ids"], "\(options.text)")

            let missing = try await checkout(suite, market, ["items": [], "fulfillment": "delivery"])
            let fields = Set(((missing.error["details"] as? [String: Any]) ?? [:]).keys)
            #expect(missing.status == 400 && fields == ["items", "payment_method", "address"], "\(missing.text)")

            // Another customer's saved address is not theirs to name.
            let other = try await api.send(
                suite, "POST", "/v1/auth/register",
                json: ["email": "eli@example.com", "password": "password-123", "name": "Eli"])
            let eli = try #require(other.object["access_token"] as? String)
            let foreign = try await api.send(
                suite, "POST", "/v1/orders", token: eli, json: good.merging(["store_id": market.store]) { $1 },
                headers: ["Idempotency-Key": UUID().uuidString])
            #expect(foreign.status == 400 && (foreign.error["details"] as? [String: Any])?["address_id"] != nil)

            // Staff cannot check out, customers cannot create a store's order.
            let staffCart = try await api.send(
                suite, "POST", "/v1/orders", token: market.owner,
                json: good.merging(["store_id": market.store]) { $1 }, headers: ["Idempotency-Key": UUID().uuidString])
            #expect(staffCart.status == 400, "a store's order needs its recipient: \(staffCart.text)")

            let inactive = try await api.send(
                suite, "PATCH", "/v1/products/\(market.falafel)", token: market.owner, json: ["active": false])
            #expect(inactive.status == 200)
            let off = try await checkout(suite, market, good)
            #expect(off.status == 422 && off.error["reason"] as? String == "product_inactive", "\(off.text)")
            #expect((off.error["details"] as? [String: Any])?["items[0].product_id"] != nil)

            let paused = try await api.send(
                suite, "PATCH", "/v1/stores/\(market.store)", token: market.owner, json: ["accepting_orders": false])
            #expect(paused.status == 200)
            // The orders service hears of the pause from the catalog's event, at once or nearly.
            #expect(
                try await waitUntil {
                    let closed = try await checkout(suite, market, good)
                    return closed.status == 422 && closed.error["reason"] as? String == "store_closed"
                })
            #expect(try await available(suite, market) == 20, "no refusal holds stock")
        }
    }
}

/// The catalog as the orders service reaches it, but a reservation's release never arrives.
struct LosingReleases: WireCaller {
    let catalog: any WireCaller

    init(_ catalog: any WireCaller) { self.catalog = catalog }

    func call<Request, Response>(_ method: WireMethod<Request, Response>, _ request: Request, options: WireCallOptions)
        async throws -> Response
    {
        if method.name == CatalogAPI.releaseReservation.name { throw OrderlyError(.unavailable, "lost on the way") }
        return try await catalog.call(method, request, options: options)
    }

    func forward<Request, Response>(
        _ method: WireMethod<Request, Response>, json body: ByteBuffer, options: WireCallOptions
    ) async throws -> ByteBuffer {
        try await catalog.forward(method, json: body, options: options)
    }
}
