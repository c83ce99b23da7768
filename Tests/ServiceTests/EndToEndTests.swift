import Domain
import Foundation
import Storage
import TestSupport
import Testing
import Wire

/// The whole suite as separate processes, as `make run` starts them, driven over HTTP as the
/// apps drive it: the flows that cross every process, Redis and the databases. Every response
/// is checked against `/openapi.yaml`.
@Suite("End to end", .serialized)
struct EndToEndTests {
    let api: API

    init() throws { api = try API() }

    /// On PostgreSQL, with every Wire connection over mutual TLS.
    @Test(
        "an order goes from the store's iPad to the courier's phone",
        arguments: TestDatabase.kinds.map { ($0, $0 == .postgres) })
    func orderFromIPadToCourier(on kind: Database.Kind, tls: Bool) async throws {
        // On SQLite, every process reaches Redis through stunnel, Redis speaking TLS alone.
        try await RunningSuite.with(on: kind, tls: tls, redisTLS: kind == .sqlite) { suite in
            let admin = try await api.admin(suite)
            if tls {
                // Its Wire certificate's end, for the alert before it lapses.
                let port = try #require(suite.adminPorts["orders"])
                let metrics = try await HTTPClient(baseURL: "").send("GET", "http://127.0.0.1:\(port)/metrics")
                let line = metrics.text.split(separator: "\n").first {
                    $0.hasPrefix(#"orderly_certificate_expiry_timestamp_seconds{certificate="wire"}"#)
                }
                let expiry = try #require(line.flatMap { Double($0.split(separator: " ").last ?? "") })
                #expect(expiry > Date().timeIntervalSince1970 + 86_400)
            }

            let storeReply = try await api.send(
                suite, "POST", "/v1/stores", token: admin, json: ["name": "Falafel Levi", "address": "Allenby 1"])
            try #require(storeReply.status == 201, "\(storeReply.text)")
            let store = storeReply.object["id"] as! String
            let other = try await api.createStore(suite, admin: admin, ["name": "Other"])

            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
            _ = try await api.createUser(suite, admin: admin, ["email": "courier@x.com", "role": "courier"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@b.com", "role": "owner", "store_id": other])

            let courier = try await api.token(suite, "courier@x.com")
            let duty = try await api.send(
                suite, "PUT", "/v1/couriers/me/availability", token: courier, json: ["on_duty": true])
            #expect(duty.status == 200 && duty.object["on_duty"] as? Bool == true, "\(duty.text)")

            // The courier waits for news while the staff member creates orders.
            let poll = Task {
                let reply = try await suite.request(
                    "GET", "/v1/notifications?after=0&wait=20", headers: ["Authorization": "Bearer \(courier)"],
                    body: nil)
                return (reply, ContinuousClock.now)
            }
            let waiting = await waitUntil { await suite.longPollsWaiting() >= 1 }
            #expect(waiting, "the courier's long-poll never started waiting")

            let staff = try await api.token(suite, "staff@a.com")
            var created: [[String: Any]] = []
            for (boxes, fee, multiplier) in [(8, 3500, 1), (9, 7000, 2), (17, 10_500, 3)] {
                let reply = try await api.send(
                    suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: boxes),
                    headers: ["Idempotency-Key": "order-\(boxes)"])
                try #require(reply.status == 201, "\(reply.text)")
                #expect(reply.object["delivery_fee"] as? Int == fee)
                #expect(reply.object["boxes_multiplier"] as? Int == multiplier)
                #expect(reply.object["total"] as? Int == fee)
                #expect(reply.object["status"] as? String == "pending")
                #expect(reply.object["store_id"] as? String == store)
                #expect(reply.headers["etag"] == "\"1\"")
                created.append(reply.object)
            }
            #expect(created.map { $0["number"] as? Int } == [1, 2, 3])

            // The store's staff hear of each; the cursor moves on.
            let staffNotifications = try await eventually {
                let inbox = try await api.send(suite, "GET", "/v1/notifications?after=0&wait=1", token: staff)
                let data = inbox.object["data"] as? [[String: Any]] ?? []
                return data.count >= 3 ? data : nil
            }
            #expect(staffNotifications?.map { $0["type"] as? String } == Array(repeating: "order.created", count: 3))

            // The courier has heard of none of them: pending, they are not in the pool, and a
            // courier is told only of what they can open. Their long-poll still waits.
            #expect(
                await suite.longPollsWaiting() >= 1,
                "the courier's long-poll was answered before any order was in the pool")

            // Accepted, the first order enters the pool: the courier's long-poll answers at once.
            let firstID = created[0]["id"] as! String
            let accepted = try await api.send(suite, "POST", "/v1/orders/\(firstID)/actions/accept", token: staff)
            let acceptedAt = ContinuousClock.now
            #expect(accepted.status == 200, "\(accepted.text)")
            let (pollReply, answered) = try await poll.value
            #expect(pollReply.status == 200, "\(pollReply.text)")
            let problems = api.document.check(
                method: "GET", path: "/v1/notifications", status: pollReply.status, body: pollReply.body,
                contentType: pollReply.headers["content-type"])
            #expect(problems.isEmpty, "\(problems)")
            let notifications = pollReply.object["data"] as? [[String: Any]] ?? []
            #expect(notifications.map { $0["type"] as? String } == ["order.available"], "\(pollReply.text)")
            #expect((notifications.first?["body"] as? String)?.contains("apt.") == false)
            let waited = answered - acceptedAt
            #expect(waited < .seconds(1), "the long-poll answered \(waited) after the order was accepted")
            let pool = try await api.send(suite, "GET", "/v1/orders?available=true", token: courier)
            let pooled = pool.object["data"] as? [[String: Any]] ?? []
            #expect(pooled.map { $0["id"] as? String } == [firstID] && pooled.first?["phone"] == nil)

            // Same key, same body: no second order, but the first as it is now (accepted since).
            // Same key, other body: refused.
            let replay = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 8),
                headers: ["Idempotency-Key": "order-8"])
            #expect(replay.status == 201)
            #expect(
                replay.object["id"] as? String == firstID
                    && replay.object["number"] as? Int == created[0]["number"] as? Int)
            #expect(replay.object["status"] as? String == "accepted")
            let reused = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 5),
                headers: ["Idempotency-Key": "order-8"])
            #expect(reused.status == 422)
            #expect(reused.error["reason"] as? String == "idempotency_key_reused", "\(reused.text)")

            // Another store's owner does not see it, in a read or a list.
            let otherOwner = try await api.token(suite, "owner@b.com")
            let foreign = try await api.send(suite, "GET", "/v1/orders/\(firstID)", token: otherOwner)
            #expect(foreign.status == 404)
            #expect(foreign.error["request_id"] as? String == foreign.headers["x-request-id"])
            let foreignList = try await api.send(suite, "GET", "/v1/orders", token: otherOwner)
            #expect((foreignList.object["data"] as? [Any])?.isEmpty == true)
            let owner = try await api.token(suite, "owner@a.com")
            let own = try await api.send(suite, "GET", "/v1/orders/\(firstID)", token: owner)
            #expect(own.status == 200)

            // Lists page by cursor.
            let firstPage = try await api.send(suite, "GET", "/v1/orders?limit=2", token: owner)
            let cursor = try #require(firstPage.object["next_cursor"] as? String)
            let secondPage = try await api.send(suite, "GET", "/v1/orders?limit=2&cursor=\(cursor)", token: owner)
            #expect((secondPage.object["data"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1])

            // A cash payment with its receipt, numbered per store, into the staff member's drawer.
            #expect(try await api.send(suite, "POST", "/v1/shifts/clock-in", token: staff, json: [:]).status == 201)
            let payment = try await api.send(
                suite, "POST", "/v1/payments", token: staff,
                json: ["order_id": firstID, "amount": 3500, "tip": 500, "method": "cash"],
                headers: ["Idempotency-Key": "pay-1"])
            try #require(payment.status == 201, "\(payment.text)")
            #expect(payment.object["amount"] as? Int == 4000 && payment.object["status"] as? String == "pending")
            let paid = try await api.send(
                suite, "POST", "/v1/payments/\(payment.object["id"] as! String)/confirm", token: staff,
                json: ["amount_tendered": 5000])
            try #require(paid.status == 200, "\(paid.text)")
            #expect(paid.object["status"] as? String == "completed" && paid.object["change_due"] as? Int == 1000)
            let receipt = try await api.send(
                suite, "GET", "/v1/receipts/\(paid.object["receipt_id"] as! String)", token: owner)
            #expect(receipt.object["number"] as? Int == 1 && receipt.object["total"] as? Int == 4000)
            let paymentRead = try await api.send(
                suite, "GET", "/v1/payments/\(payment.object["id"] as! String)", token: owner)
            #expect(paymentRead.status == 200)
            let foreignReceipt = try await api.send(
                suite, "GET", "/v1/receipts/\(paid.object["receipt_id"] as! String)", token: otherOwner)
            #expect(foreignReceipt.status == 404)

            // Refresh tokens rotate; presenting a spent one ends the whole family.
            let session = try await api.login(suite, "staff@a.com", "password-123")
            let first = session["refresh_token"] as! String
            let rotated = try await api.send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": first])
            #expect(rotated.status == 200)
            let second = rotated.object["refresh_token"] as! String
            #expect(second != first)
            let reuse = try await api.send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": first])
            #expect(reuse.status == 401)
            #expect(reuse.error["reason"] as? String == "refresh_token_reused")
            let afterRevoke = try await api.send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": second])
            #expect(afterRevoke.status == 401)

            let me = try await api.send(suite, "GET", "/v1/me", token: staff)
            #expect(me.object["email"] as? String == "staff@a.com")

            // Logging out ends the session's refresh token.
            let ending = try await api.login(suite, "staff@a.com", "password-123")
            let loggedOut = try await api.send(
                suite, "POST", "/v1/auth/logout", token: ending["access_token"] as? String,
                json: ["refresh_token": ending["refresh_token"] as! String])
            #expect(loggedOut.status == 204)
            let afterLogout = try await api.send(
                suite, "POST", "/v1/auth/refresh", json: ["refresh_token": ending["refresh_token"] as! String])
            #expect(afterLogout.status == 401)

            // Over TLS, a caller that knows the internal secret but speaks plain TCP is refused.
            if tls {
                await #expect(throws: OrderlyError.self) {
                    try await WireConnection.connect(
                        host: "127.0.0.1", port: suite.wirePorts["orders"]!, server: "orders",
                        callerService: "gateway", secret: WireSecret("internal-secret-for-tests-0123456789")!)
                }
            }
        }
    }
}
