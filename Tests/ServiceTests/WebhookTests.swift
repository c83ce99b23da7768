import Contracts
import Crypto
import Foundation
import Runtime
import TestSupport
import Testing

@testable import Notifications

/// Webhooks: endpoints a store's owners and managers register, the signed deliveries of its
/// events to them, retries, redelivery, giving up, and the destinations refused.
@Suite("Webhooks", .serialized, .timeLimit(.minutes(2)))
struct WebhookTests {
    let api: API

    init() throws { api = try API() }

    /// Checks `header` against `body` and `secret` as a receiver would, from the documented
    /// scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
    static func signatureHolds(_ header: String?, body: String, secret: String) -> Bool {
        guard let header else { return false }
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        guard let t = fields["t"], let seconds = Int(t), abs(Int(Date().timeIntervalSince1970) - seconds) < 300,
            let v1 = fields["v1"]
        else { return false }
        let code = HMAC<SHA256>.authenticationCode(
            for: Data("\(t).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined() == v1
    }

    /// A store with an owner and a staff member; their tokens.
    private func store(_ suite: any Suite) async throws -> (store: String, owner: String, staff: String) {
        let admin = try await api.admin(suite)
        let store = try await api.createStore(suite, admin: admin, ["name": "Falafel Levi"])
        _ = try await api.createUser(suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store])
        _ = try await api.createUser(suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
        return (store, try await api.token(suite, "owner@a.com"), try await api.token(suite, "staff@a.com"))
    }

    private func order(_ suite: any Suite, _ token: String, key: String) async throws -> String {
        let reply = try await api.send(
            suite, "POST", "/v1/orders", token: token, json: API.delivery(boxes: 2), headers: ["Idempotency-Key": key])
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object["id"] as! String
    }

    private func deliveries(_ suite: any Suite, _ token: String, _ webhook: String) async throws -> [[String: Any]] {
        let reply = try await api.send(suite, "GET", "/v1/webhooks/\(webhook)/deliveries", token: token)
        return reply.object["data"] as? [[String: Any]] ?? []
    }

    @Test(
        "deliveries are signed as documented, logged, sent again on request, tested on request, and follow a new secret"
    )
    func signedDeliveries() async throws {
        let receiver = try await WebhookReceiver.start()
        try await InProcessSuite.with { suite in
            let (store, owner, staff) = try await store(suite)
            let url = "http://127.0.0.1:\(receiver.port)/hook"
            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                json: ["url": url, "events": ["order.created", "order.status_changed"]])
            try #require(created.status == 201, "\(created.text)")
            let webhook = created.object["id"] as! String
            let secret = try #require(created.object["secret"] as? String)
            #expect(secret.hasPrefix("whsec_") && secret.count == 70)
            let read = try await api.send(suite, "GET", "/v1/webhooks/\(webhook)", token: owner)
            #expect(read.status == 200 && read.object["secret"] == nil && read.object["active"] as? Bool == true)

            // Staff neither see nor make endpoints; another store's are not theirs either.
            #expect(try await api.send(suite, "GET", "/v1/webhooks/\(webhook)", token: staff).status == 404)
            #expect(try await api.send(suite, "GET", "/v1/stores/\(store)/webhooks", token: staff).status == 404)
            let byStaff = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: staff,
                json: ["url": url, "events": ["order.created"]])
            #expect(byStaff.status == 404)

            let orderID = try await order(suite, staff, key: "o1")
            #expect(await waitUntil { receiver.received.count == 1 }, "\(receiver.received)")
            let first = try #require(receiver.received.first)
            #expect(Self.signatureHolds(first.headers["orderly-signature"], body: first.body, secret: secret))
            #expect(!Self.signatureHolds(first.headers["orderly-signature"], body: first.body + " ", secret: secret))
            #expect(first.headers["orderly-event-type"] == "order.created")
            #expect(api.document.checkWebhook(type: "order.created", body: first.body) == [])
            let event = try JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any]
            #expect(event?["type"] as? String == "order.created" && event?["store_id"] as? String == store)
            #expect((event?["data"] as? [String: Any])?["id"] as? String == orderID)

            let logged = try #require(
                await eventually {
                    let all = try await deliveries(suite, owner, webhook)
                    return all.first?["status"] as? String == "delivered" ? all : nil
                })
            #expect(
                logged.count == 1 && logged[0]["attempts"] as? Int == 1 && logged[0]["last_status_code"] as? Int == 200)
            #expect(logged[0]["id"] as? String == first.headers["orderly-delivery-id"])
            #expect(logged[0]["event_id"] as? String == event?["id"] as? String)

            // Sent again on request, with the same delivery id.
            let again = try await api.send(
                suite, "POST", "/v1/webhooks/\(webhook)/deliveries/\(logged[0]["id"] as! String)/redeliver",
                token: owner)
            #expect(again.status == 202, "\(again.text)")
            #expect(await waitUntil { receiver.received.count == 2 })
            #expect(receiver.received.last?.headers["orderly-delivery-id"] == first.headers["orderly-delivery-id"])
            #expect(receiver.received.last?.body == first.body)

            // A new secret signs what follows; the old one no longer does.
            let rotated = try await api.send(suite, "POST", "/v1/webhooks/\(webhook)/rotate-secret", token: owner)
            let newSecret = try #require(rotated.object["secret"] as? String)
            #expect(newSecret != secret)
            let accepted = try await api.send(suite, "POST", "/v1/orders/\(orderID)/actions/accept", token: staff)
            #expect(accepted.status == 200)
            #expect(await waitUntil { receiver.received.count == 3 })
            let third = try #require(receiver.received.last)
            #expect(third.headers["orderly-event-type"] == "order.status_changed")
            #expect(api.document.checkWebhook(type: "order.status_changed", body: third.body) == [])
            #expect(Self.signatureHolds(third.headers["orderly-signature"], body: third.body, secret: newSecret))
            #expect(!Self.signatureHolds(third.headers["orderly-signature"], body: third.body, secret: secret))

            // A test on request: to this endpoint alone, signed, documented, logged; not by staff.
            #expect(try await api.send(suite, "POST", "/v1/webhooks/\(webhook)/test", token: staff).status == 404)
            let tested = try await api.send(suite, "POST", "/v1/webhooks/\(webhook)/test", token: owner)
            #expect(tested.status == 202 && tested.object["event_type"] as? String == "webhook.test", "\(tested.text)")
            #expect(await waitUntil { receiver.received.count == 4 })
            let test = try #require(receiver.received.last)
            #expect(test.headers["orderly-event-type"] == "webhook.test")
            #expect(api.document.checkWebhook(type: "webhook.test", body: test.body) == [])
            #expect(Self.signatureHolds(test.headers["orderly-signature"], body: test.body, secret: newSecret))
            let testEvent = try JSONSerialization.jsonObject(with: Data(test.body.utf8)) as? [String: Any]
            #expect((testEvent?["data"] as? [String: Any])?["webhook_id"] as? String == webhook)
            #expect(
                try await eventually {
                    try await deliveries(suite, owner, webhook).first {
                        $0["id"] as? String == tested.object["id"] as? String
                    }?[
                        "status"] as? String == "delivered" ? true : nil
                } == true)

            // Deleted, it hears of nothing more.
            #expect(try await api.send(suite, "DELETE", "/v1/webhooks/\(webhook)", token: owner).status == 204)
            #expect(try await api.send(suite, "GET", "/v1/webhooks/\(webhook)", token: owner).status == 404)
        }
        await receiver.stop()
    }

    @Test("every event a store can subscribe to arrives as the OpenAPI document's webhooks describe it")
    func everyEventAsDocumented() async throws {
        let receiver = try await WebhookReceiver.start()
        try await InProcessSuite.with { suite in
            let (store, owner, staff) = try await store(suite)
            let admin = try await api.admin(suite)
            _ = try await api.createUser(suite, admin: admin, ["email": "courier@a.com", "role": "courier"])
            let courier = try await api.token(suite, "courier@a.com")
            let onDuty = try await api.send(
                suite, "PUT", "/v1/couriers/me/availability", token: courier, json: ["on_duty": true])
            #expect(onDuty.status == 200)
            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                json: ["url": "http://127.0.0.1:\(receiver.port)/hook", "events": WebhooksAPI.eventTypes])
            try #require(created.status == 201, "\(created.text)")

            // The orders' four: made, accepted, claimed, released.
            let orderID = try await order(suite, staff, key: "every-1")
            #expect(
                try await api.send(suite, "POST", "/v1/orders/\(orderID)/actions/accept", token: staff).status == 200)
            // Claimed once the orders service has heard the courier went on duty.
            #expect(
                try await waitUntil {
                    try await api.send(suite, "POST", "/v1/orders/\(orderID)/actions/claim", token: courier).status
                        == 200
                })
            #expect(
                try await api.send(suite, "POST", "/v1/orders/\(orderID)/actions/release", token: courier).status == 200
            )

            // The catalog's two and the payments' two: two units, low at one, sold one by one,
            // the first payment refunded in part.
            let product = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner,
                json: [
                    "name": "Cola", "price": 900, "vat_rate_bp": 1700, "track_stock": true, "quantity": 2,
                    "low_stock_threshold": 1,
                ])
            try #require(product.status == 201, "\(product.text)")
            // The staff member takes the cash into their drawer and refunds a little of it.
            #expect(try await api.send(suite, "POST", "/v1/shifts/clock-in", token: staff, json: [:]).status == 201)
            let limit = try await api.send(
                suite, "PATCH", "/v1/stores/\(store)", token: owner, json: ["staff_refund_limit": 100])
            #expect(limit.status == 200, "\(limit.text)")
            for unit in 1...2 {
                let payment = try await api.send(
                    suite, "POST", "/v1/payments", token: staff,
                    json: ["items": [["product_id": product.object["id"]!, "quantity": 1]], "method": "cash"],
                    headers: ["Idempotency-Key": "pay-\(unit)"])
                try #require(payment.status == 201, "\(payment.text)")
                let id = payment.object["id"] as! String
                let confirmed = try await api.send(
                    suite, "POST", "/v1/payments/\(id)/confirm", token: staff, json: ["amount_tendered": 1000])
                #expect(confirmed.status == 200, "\(confirmed.text)")
                if unit == 1 {
                    let refund = try await api.send(
                        suite, "POST", "/v1/payments/\(id)/refunds", token: staff,
                        json: ["amount": 100, "reason": "Dented can"], headers: ["Idempotency-Key": "refund-1"])
                    #expect(refund.status == 201, "\(refund.text)")
                }
            }

            let types = Set(WebhooksAPI.eventTypes)
            let arrived = await waitUntil(within: .seconds(30)) {
                types.isSubset(of: Set(receiver.received.compactMap { $0.headers["orderly-event-type"] }))
            }
            #expect(arrived, "\(receiver.received.map { $0.headers["orderly-event-type"] ?? "?" })")
            for delivery in receiver.received {
                let type = delivery.headers["orderly-event-type"] ?? "?"
                #expect(api.document.checkWebhook(type: type, body: delivery.body) == [], "\(type)")
            }
        }
        await receiver.stop()
    }

    @Test("an endpoint that is slow to answer holds up no other endpoint's deliveries")
    func slowEndpoint() async throws {
        let (slow, quick) = (try await WebhookReceiver.start(), try await WebhookReceiver.start())
        slow.hold()
        try await InProcessSuite.with { suite in
            let (store, owner, staff) = try await store(suite)
            for receiver in [slow, quick] {
                let created = try await api.send(
                    suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                    json: ["url": "http://127.0.0.1:\(receiver.port)/hook", "events": ["order.created"]])
                try #require(created.status == 201, "\(created.text)")
            }
            _ = try await order(suite, staff, key: "slow-1")
            #expect(await waitUntil { slow.received.count == 1 && quick.received.count == 1 })
            // The slow endpoint still holds the first order's delivery; the quick one hears of the next at once.
            _ = try await order(suite, staff, key: "slow-2")
            #expect(await waitUntil(within: .seconds(5)) { quick.received.count == 2 })
        }
        slow.release()
        await slow.stop()
        await quick.stop()
    }

    @Test("a store whose endpoints are slow holds up no other store's deliveries, however many it has due")
    func slowStore() async throws {
        let (slow, quick) = (try await WebhookReceiver.start(), try await WebhookReceiver.start())
        slow.hold()
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            var staff: [String] = []
            for (name, receiver) in [("Slow", slow), ("Quick", quick)] {
                let store = try await api.createStore(suite, admin: admin, ["name": name])
                let created = try await api.send(
                    suite, "POST", "/v1/stores/\(store)/webhooks", token: admin,
                    json: ["url": "http://127.0.0.1:\(receiver.port)/hook", "events": ["order.created"]])
                try #require(created.status == 201, "\(created.text)")
                _ = try await api.createUser(
                    suite, admin: admin, ["email": "staff@\(name).com", "role": "staff", "store_id": store])
                staff.append(try await api.token(suite, "staff@\(name).com"))
            }
            // More deliveries due to the slow store than the dispatcher has slots.
            for number in 0...WebhookDispatcher.concurrency {
                _ = try await order(suite, staff[0], key: "slow-\(number)")
            }
            #expect(await waitUntil { slow.received.count == WebhookDispatcher.perStore })
            _ = try await order(suite, staff[1], key: "quick-1")
            #expect(await waitUntil(within: .seconds(5)) { quick.received.count == 1 })
            #expect(slow.received.count == WebhookDispatcher.perStore)
        }
        slow.release()
        await slow.stop()
        await quick.stop()
    }

    @Test("a failing endpoint is retried with backoff; one turned off is sent nothing; a delivery sent again arrives")
    func retries() async throws {
        let receiver = try await WebhookReceiver.start()
        receiver.answer(503)
        try await InProcessSuite.with { suite in
            let (store, owner, staff) = try await store(suite)
            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                json: ["url": "http://127.0.0.1:\(receiver.port)/hook", "events": ["order.created"]])
            let webhook = created.object["id"] as! String
            _ = try await order(suite, staff, key: "o1")
            let retried = await eventually {
                let all = try? await deliveries(suite, owner, webhook)
                return (all?.first?["attempts"] as? Int ?? 0) >= 3 ? all?.first : nil
            }
            #expect(retried?["status"] as? String == "pending" && retried?["last_status_code"] as? Int == 503)
            #expect(retried?["next_attempt_at"] is String)

            // Turned off by its owner, it is sent nothing: what falls due fails, saying why, and
            // new events are not stored for it.
            let off = try await api.send(
                suite, "PATCH", "/v1/webhooks/\(webhook)", token: owner, json: ["active": false])
            #expect(off.status == 200 && off.object["active"] as? Bool == false)
            let skipped = await eventually {
                let all = try? await deliveries(suite, owner, webhook)
                return all?.first?["status"] as? String == "failed" ? all?.first : nil
            }
            #expect(skipped?["last_error"] as? String == "the endpoint is turned off")
            _ = try await order(suite, staff, key: "o2")
            // Its event applied (the store's users heard of it) while the endpoint was off.
            #expect(
                await waitUntil {
                    let inbox = try? await api.send(suite, "GET", "/v1/notifications", token: owner)
                    return (inbox?.object["data"] as? [[String: Any]])?.count == 2
                })
            let heard = receiver.received.count

            // On again and answering, the delivery sent again arrives.
            _ = try await api.send(suite, "PATCH", "/v1/webhooks/\(webhook)", token: owner, json: ["active": true])
            receiver.answer(200)
            let id = try #require(retried?["id"] as? String)
            let again = try await api.send(
                suite, "POST", "/v1/webhooks/\(webhook)/deliveries/\(id)/redeliver", token: owner)
            #expect(again.status == 202)
            #expect(
                await waitUntil {
                    (try? await deliveries(suite, owner, webhook))?.first?["status"] as? String == "delivered"
                })
            #expect(receiver.received.count == heard + 1)
            #expect(try await deliveries(suite, owner, webhook).count == 1)
            // Every attempt carried the same delivery id and body.
            #expect(Set(receiver.received.map { $0.headers["orderly-delivery-id"] ?? "" }).count == 1)
            #expect(Set(receiver.received.map(\.body)).count == 1)
        }
        await receiver.stop()
    }

    @Test("an endpoint failing for the whole window is turned off and the store's owners are told")
    func givingUp() async throws {
        let receiver = try await WebhookReceiver.start()
        receiver.answer(500)
        try await InProcessSuite.with(settings: ["webhooks.giveUpSeconds": "1"]) { suite in
            let (store, owner, staff) = try await store(suite)
            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                json: ["url": "http://127.0.0.1:\(receiver.port)/hook", "events": ["order.created"]])
            let webhook = created.object["id"] as! String
            _ = try await order(suite, staff, key: "o1")
            #expect(
                await waitUntil {
                    (try? await deliveries(suite, owner, webhook))?.first?["status"] as? String == "failed"
                })
            let turnedOff = try await api.send(suite, "GET", "/v1/webhooks/\(webhook)", token: owner)
            #expect(turnedOff.object["active"] as? Bool == false)
            #expect((turnedOff.object["disabled_reason"] as? String)?.contains("500") == true, "\(turnedOff.text)")
            let told = await eventually {
                let inbox = try? await api.send(suite, "GET", "/v1/notifications", token: owner)
                return (inbox?.object["data"] as? [[String: Any]])?.first {
                    $0["type"] as? String == "webhook.disabled"
                }
            }
            #expect((told?["data"] as? [String: String])?["webhook_id"] == webhook)
            // Turned on again, it is active with no reason left.
            let on = try await api.send(suite, "PATCH", "/v1/webhooks/\(webhook)", token: owner, json: ["active": true])
            #expect(on.object["active"] as? Bool == true && on.object["disabled_reason"] == nil)
        }
        await receiver.stop()
    }

    @Test("private, loopback, link-local and metadata destinations are refused unless allowed")
    func destinations() async throws {
        let strict = WebhookDestinations(allowed: [])
        for refused in [
            "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1",
            "fe80::1", "fd00:ec2::254", "::ffff:10.0.0.1", "224.0.0.1", "::", "::10.0.0.1", "2002:a00:1::1",
            "2001:0:4136:e378::1", "fec0::1", "64:ff9b:1::a00:1",
        ] {
            #expect(!strict.permits(IPAddress(refused)!), "\(refused)")
        }
        for permitted in ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"] {
            #expect(strict.permits(IPAddress(permitted)!), "\(permitted)")
        }
        #expect(WebhookDestinations(allowed: [IPNetwork("127.0.0.0/8")!]).permits(IPAddress("127.0.0.1")!))

        // Named, a loopback destination is refused when delivered, however it was registered.
        let receiver = try await WebhookReceiver.start()
        try await InProcessSuite.with(settings: ["webhooks.allowedNetworks": "none"]) { suite in
            let (store, owner, staff) = try await store(suite)
            for url in [
                "http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data", "https://[fe80::1]/x", "ftp://a.b/c",
            ] {
                let refused = try await api.send(
                    suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                    json: ["url": url, "events": ["order.created"]])
                #expect(
                    refused.status == 400 && (refused.error["details"] as? [String: Any])?["url"] != nil,
                    "\(url): \(refused.text)")
            }
            let badEvents = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                json: ["url": "https://example.com/x", "events": ["order.exploded"]])
            #expect(badEvents.status == 400 && (badEvents.error["details"] as? [String: Any])?["events"] != nil)
            let named = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                json: ["url": "http://localhost:\(receiver.port)/hook", "events": ["order.created"]])
            try #require(named.status == 201, "\(named.text)")
            _ = try await order(suite, staff, key: "o1")
            let attempt = await eventually {
                let all = try? await deliveries(suite, owner, named.object["id"] as! String)
                return (all?.first?["attempts"] as? Int ?? 0) >= 1 ? all?.first : nil
            }
            #expect(
                (attempt?["last_error"] as? String)?.contains("not a public address") == true,
                "\(String(describing: attempt))")
            #expect(receiver.received.isEmpty)
        }
        await receiver.stop()
    }

    @Test("a receiver down for a while gets every delivery once back, across a restart of the notifications service")
    func receiverDownAndRestart() async throws {
        // Nothing listens on the endpoint's port until the end: every attempt is refused.
        let port = Int.random(in: 20_000..<32_000)
        let receiver = WebhookReceiver()
        try await RunningSuite.with { suite in
            let (store, owner, staff) = try await store(suite)
            let created = try await api.send(
                suite, "POST", "/v1/stores/\(store)/webhooks", token: owner,
                json: ["url": "http://127.0.0.1:\(port)/hook", "events": ["order.created"]])
            let webhook = created.object["id"] as! String
            var orders: [String] = []
            for key in ["o1", "o2", "o3"] { orders.append(try await order(suite, staff, key: key)) }
            let tried = await waitUntil {
                let all = (try? await deliveries(suite, owner, webhook)) ?? []
                return all.count == 3 && all.allSatisfy { ($0["attempts"] as? Int ?? 0) >= 1 }
            }
            #expect(tried)
            try await suite.restart("notifications")
            try await receiver.listen(port: port)
            #expect(await waitUntil(within: .seconds(30)) { Set(receiver.received.map(\.body)).count == 3 })
            let heard = receiver.received.compactMap {
                ((try? JSONSerialization.jsonObject(with: Data($0.body.utf8))) as? [String: Any])?["data"]
                    as? [String: Any]
            }.compactMap { $0["id"] as? String }
            #expect(Set(heard) == Set(orders))
            #expect(
                await waitUntil {
                    (try? await deliveries(suite, owner, webhook))?.allSatisfy {
                        $0["status"] as? String == "delivered"
                    }
                        ?? false
                })
        }
        await receiver.stop()
    }
}
