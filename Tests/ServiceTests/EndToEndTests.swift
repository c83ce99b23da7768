import Foundation
import Storage
import Testing

/// The whole suite as separate processes, driven over HTTP as the apps drive it; every
/// response is checked against `/openapi.yaml`.
@Suite("End to end", .serialized)
struct EndToEndTests {
    let document: OpenAPIDocument

    init() throws { document = try OpenAPIDocument() }

    /// Sends a request and checks the reply against the OpenAPI document.
    func send(
        _ suite: RunningSuite, _ method: String, _ path: String, token: String? = nil, json: Any? = nil,
        raw: Data? = nil, headers: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> HTTPClient.Reply {
        let reply = try await HTTPClient(baseURL: suite.gatewayURL).send(
            method, path, token: token, json: json, raw: raw, headers: headers)
        let problems = document.check(
            method: method, path: path, status: reply.status, body: reply.body,
            contentType: reply.headers["content-type"])
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))", sourceLocation: sourceLocation)
        return reply
    }

    func login(_ suite: RunningSuite, _ email: String, _ password: String) async throws -> [String: Any] {
        let reply = try await send(suite, "POST", "/v1/auth/login", json: ["email": email, "password": password])
        try #require(reply.status == 200, "\(reply.text)")
        return reply.object
    }

    func createUser(_ suite: RunningSuite, admin: String, _ fields: [String: Any]) async throws -> [String: Any] {
        var body = fields
        body["password"] = "password-123"
        body["name"] = body["name"] ?? "Someone"
        let reply = try await send(suite, "POST", "/v1/users", token: admin, json: body)
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object
    }

    static func delivery(boxes: Int) -> [String: Any] {
        [
            "recipient_first_name": "Dana", "recipient_last_name": "Levi", "phone": "050-1234567",
            "street": "Herzl", "building_no": "12", "floor": "3", "apartment": "7", "city": "Tel Aviv",
            "boxes_count": boxes,
        ]
    }

    @Test("an order goes from the store's iPad to the courier's phone", arguments: [Database.Kind.sqlite, .postgres])
    func orderFromIPadToCourier(on kind: Database.Kind) async throws {
        try await RunningSuite.with(on: kind) { suite in
            let admin = try await login(suite, suite.adminEmail, suite.adminPassword)["access_token"] as! String

            let storeReply = try await send(
                suite, "POST", "/v1/stores", token: admin, json: ["name": "Falafel Levi", "address": "Allenby 1"])
            try #require(storeReply.status == 201, "\(storeReply.text)")
            let store = storeReply.object["id"] as! String
            let other =
                try await send(suite, "POST", "/v1/stores", token: admin, json: ["name": "Other"]).object["id"]
                as! String

            _ = try await createUser(suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store])
            _ = try await createUser(suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
            _ = try await createUser(suite, admin: admin, ["email": "courier@x.com", "role": "courier"])
            _ = try await createUser(suite, admin: admin, ["email": "owner@b.com", "role": "owner", "store_id": other])

            let courier = try await login(suite, "courier@x.com", "password-123")["access_token"] as! String
            let duty = try await send(
                suite, "PUT", "/v1/couriers/me/availability", token: courier, json: ["on_duty": true])
            #expect(duty.status == 200 && duty.object["on_duty"] as? Bool == true, "\(duty.text)")

            // The courier waits for news while the staff member creates orders.
            let gateway = suite.gatewayURL
            let poll = Task {
                let reply = try await HTTPClient(baseURL: gateway).send(
                    "GET", "/v1/notifications?after=0&wait=20", token: courier)
                return (reply, ContinuousClock.now)
            }
            try await Task.sleep(for: .milliseconds(300))

            let staff = try await login(suite, "staff@a.com", "password-123")["access_token"] as! String
            var created: [[String: Any]] = []
            var firstCreated: ContinuousClock.Instant?
            for (boxes, fee, multiplier) in [(8, 3500, 1), (9, 7000, 2), (17, 10_500, 3)] {
                let reply = try await send(
                    suite, "POST", "/v1/orders", token: staff, json: Self.delivery(boxes: boxes),
                    headers: ["Idempotency-Key": "order-\(boxes)"])
                firstCreated = firstCreated ?? ContinuousClock.now
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

            let (pollReply, answered) = try await poll.value
            #expect(pollReply.status == 200, "\(pollReply.text)")
            let problems = document.check(
                method: "GET", path: "/v1/notifications", status: pollReply.status, body: pollReply.body,
                contentType: pollReply.headers["content-type"])
            #expect(problems.isEmpty, "\(problems)")
            let notifications = pollReply.object["data"] as? [[String: Any]] ?? []
            #expect(notifications.first?["type"] as? String == "order.created")
            let waited = answered - firstCreated!
            #expect(waited < .seconds(1), "the long-poll answered \(waited) after the order")

            // The store's staff hear of it too; the cursor moves on.
            var staffNotifications: [Any] = []
            for _ in 0..<50 where staffNotifications.count < 3 {
                let inbox = try await send(suite, "GET", "/v1/notifications?after=0&wait=1", token: staff)
                staffNotifications = inbox.object["data"] as? [Any] ?? []
                if staffNotifications.count < 3 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(staffNotifications.count == 3)

            // Same key, same body: the very same answer. Same key, other body: refused.
            let replay = try await send(
                suite, "POST", "/v1/orders", token: staff, json: Self.delivery(boxes: 8),
                headers: ["Idempotency-Key": "order-8"])
            #expect(replay.status == 201)
            #expect(NSDictionary(dictionary: replay.object) == NSDictionary(dictionary: created[0]))
            let reused = try await send(
                suite, "POST", "/v1/orders", token: staff, json: Self.delivery(boxes: 5),
                headers: ["Idempotency-Key": "order-8"])
            #expect(reused.status == 422)
            #expect(reused.error["reason"] as? String == "idempotency_key_reused", "\(reused.text)")

            // Another store's owner does not see it, in a read or a list.
            let otherOwner = try await login(suite, "owner@b.com", "password-123")["access_token"] as! String
            let firstID = created[0]["id"] as! String
            let foreign = try await send(suite, "GET", "/v1/orders/\(firstID)", token: otherOwner)
            #expect(foreign.status == 404)
            #expect(foreign.error["request_id"] as? String == foreign.headers["x-request-id"])
            let foreignList = try await send(suite, "GET", "/v1/orders", token: otherOwner)
            #expect((foreignList.object["data"] as? [Any])?.isEmpty == true)
            let owner = try await login(suite, "owner@a.com", "password-123")["access_token"] as! String
            let own = try await send(suite, "GET", "/v1/orders/\(firstID)", token: owner)
            #expect(own.status == 200)

            // Lists page by cursor.
            let firstPage = try await send(suite, "GET", "/v1/orders?limit=2", token: owner)
            let cursor = try #require(firstPage.object["next_cursor"] as? String)
            let secondPage = try await send(suite, "GET", "/v1/orders?limit=2&cursor=\(cursor)", token: owner)
            #expect((secondPage.object["data"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1])

            // A cash payment with its receipt, numbered per store.
            let payment = try await send(
                suite, "POST", "/v1/payments", token: staff,
                json: ["order_id": firstID, "amount": 3500, "tip": 500, "method": "cash"],
                headers: ["Idempotency-Key": "pay-1"])
            try #require(payment.status == 201, "\(payment.text)")
            #expect(payment.object["amount"] as? Int == 4000 && payment.object["status"] as? String == "completed")
            let receipt = try await send(
                suite, "GET", "/v1/receipts/\(payment.object["receipt_id"] as! String)", token: owner)
            #expect(receipt.object["number"] as? Int == 1 && receipt.object["total"] as? Int == 4000)
            let paymentRead = try await send(
                suite, "GET", "/v1/payments/\(payment.object["id"] as! String)", token: owner)
            #expect(paymentRead.status == 200)
            let foreignReceipt = try await send(
                suite, "GET", "/v1/receipts/\(payment.object["receipt_id"] as! String)", token: otherOwner)
            #expect(foreignReceipt.status == 404)

            // Refresh tokens rotate; presenting a spent one ends the whole family.
            let session = try await login(suite, "staff@a.com", "password-123")
            let first = session["refresh_token"] as! String
            let rotated = try await send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": first])
            #expect(rotated.status == 200)
            let second = rotated.object["refresh_token"] as! String
            #expect(second != first)
            let reuse = try await send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": first])
            #expect(reuse.status == 401)
            #expect(reuse.error["reason"] as? String == "refresh_token_reused")
            let afterRevoke = try await send(suite, "POST", "/v1/auth/refresh", json: ["refresh_token": second])
            #expect(afterRevoke.status == 401)

            let me = try await send(suite, "GET", "/v1/me", token: staff)
            #expect(me.object["email"] as? String == "staff@a.com")

            // Logging out ends the session's refresh token.
            let ending = try await login(suite, "staff@a.com", "password-123")
            let loggedOut = try await send(
                suite, "POST", "/v1/auth/logout", token: ending["access_token"] as? String,
                json: ["refresh_token": ending["refresh_token"] as! String])
            #expect(loggedOut.status == 204)
            let afterLogout = try await send(
                suite, "POST", "/v1/auth/refresh", json: ["refresh_token": ending["refresh_token"] as! String])
            #expect(afterLogout.status == 401)
        }
    }

    @Test("owners manage their store's staff and nobody else's; stale versions are refused")
    func usersAndStores() async throws {
        try await RunningSuite.with { suite in
            let admin = try await login(suite, suite.adminEmail, suite.adminPassword)["access_token"] as! String
            let store =
                try await send(suite, "POST", "/v1/stores", token: admin, json: ["name": "A"]).object["id"]
                as! String
            let other =
                try await send(suite, "POST", "/v1/stores", token: admin, json: ["name": "B"]).object["id"]
                as! String
            _ = try await createUser(suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store])
            let foreignStaff = try await createUser(
                suite, admin: admin, ["email": "staff@b.com", "role": "staff", "store_id": other])
            let owner = try await login(suite, "owner@a.com", "password-123")["access_token"] as! String

            let staff = try await send(
                suite, "POST", "/v1/users", token: owner,
                json: [
                    "email": "cashier@a.com", "name": "Cash", "role": "staff", "staff_role": "cashier",
                    "password": "password-123",
                ])
            try #require(staff.status == 201, "\(staff.text)")
            #expect(staff.object["store_id"] as? String == store)
            let ownerByOwner = try await send(
                suite, "POST", "/v1/users", token: owner,
                json: ["email": "o2@a.com", "name": "O", "role": "owner", "password": "password-123"])
            #expect(ownerByOwner.status == 403)
            let duplicate = try await send(
                suite, "POST", "/v1/users", token: owner,
                json: ["email": "CASHIER@a.com", "name": "Again", "role": "staff", "password": "password-123"])
            #expect(duplicate.status == 409 && duplicate.error["reason"] as? String == "email_taken")

            let listed = try await send(suite, "GET", "/v1/users", token: owner)
            let emails = (listed.object["data"] as? [[String: Any]] ?? []).compactMap { $0["email"] as? String }
            #expect(Set(emails) == ["owner@a.com", "cashier@a.com"])
            let foreign = try await send(suite, "GET", "/v1/users/\(foreignStaff["id"] as! String)", token: owner)
            #expect(foreign.status == 404)

            let staffID = staff.object["id"] as! String
            let renamed = try await send(
                suite, "PATCH", "/v1/users/\(staffID)", token: owner, json: ["name": "Cashier One"],
                headers: ["If-Match": "\"1\""])
            #expect(renamed.status == 200 && renamed.object["version"] as? Int == 2, "\(renamed.text)")
            let stale = try await send(
                suite, "PATCH", "/v1/users/\(staffID)", token: owner, json: ["active": false],
                headers: ["If-Match": "\"1\""])
            #expect(stale.status == 409 && stale.error["reason"] as? String == "version_conflict")
            let cashier = try await login(suite, "cashier@a.com", "password-123")["access_token"] as! String
            let byStaff = try await send(
                suite, "POST", "/v1/users", token: cashier,
                json: ["email": "x@a.com", "name": "X", "role": "staff", "password": "password-123"])
            #expect(byStaff.status == 403)
            let notCourier = try await send(
                suite, "PUT", "/v1/couriers/me/availability", token: cashier, json: ["on_duty": true])
            #expect(notCourier.status == 403)

            // Stores: owners see and change their own; a price change reaches the next order.
            let stores = try await send(suite, "GET", "/v1/stores", token: owner)
            #expect((stores.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [store])
            #expect(try await send(suite, "GET", "/v1/stores/\(other)", token: owner).status == 404)
            let byStaffStore = try await send(
                suite, "PATCH", "/v1/stores/\(store)", token: cashier, json: ["name": "Mine"])
            #expect(byStaffStore.status == 403)
            let badTimezone = try await send(
                suite, "PATCH", "/v1/stores/\(store)", token: owner, json: ["timezone": "Mars/Olympus"])
            #expect(
                badTimezone.status == 400 && (badTimezone.error["details"] as? [String: String])?["timezone"] != nil)
            let repriced = try await send(
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
            var fee: Int?
            for attempt in 0..<30 where fee != 5000 {
                let order = try await send(
                    suite, "POST", "/v1/orders", token: cashier, json: Self.delivery(boxes: 6),
                    headers: ["Idempotency-Key": "reprice-\(attempt)"])
                fee = order.object["delivery_fee"] as? Int
                if fee != 5000 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(fee == 5000)
        }
    }
}
