import Foundation
import SQLKit
import TestSupport
import Testing

@testable import Notifications

/// The notifications' three channels over one cursor, across the processes: server-sent event
/// streams (resumed, capped, ended at shutdown), the inbox's cursor, and read state; and a
/// store's activity stream, left open on an owner's dashboard.
@Suite("Notification streams", .serialized)
struct NotificationStreamTests {
    let api: API

    init() throws { api = try API() }

    /// A store with a staff member signed in; returns the staff member's token.
    private func staffMember(_ suite: RunningSuite) async throws -> String {
        let admin = try await api.admin(suite)
        let store = try await api.createStore(suite, admin: admin, ["name": "Falafel Levi"])
        _ = try await api.createUser(suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
        return try await api.token(suite, "staff@a.com")
    }

    private func createOrder(_ suite: RunningSuite, token: String, key: String) async throws -> String {
        let reply = try await api.send(
            suite, "POST", "/v1/orders", token: token, json: API.delivery(boxes: 2), headers: ["Idempotency-Key": key])
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object["id"] as! String
    }

    /// The order ids of the events, in order.
    private func orderIDs(_ events: [EventStreamClient.Event]) -> [String] {
        events.compactMap { event in
            let object = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
            return (object?["data"] as? [String: String])?["order_id"]
        }
    }

    @Test("a stream sends what waits, then each new one; resumed by Last-Event-ID it misses and repeats nothing")
    func resumedStream() async throws {
        try await RunningSuite.with { suite in
            let staff = try await staffMember(suite)
            let auth = ["Authorization": "Bearer \(staff)"]
            let first = try await createOrder(suite, token: staff, key: "o1")

            let stream = try await EventStreamClient.open(
                port: suite.httpPort, path: "/v1/notifications/stream", headers: auth)
            #expect(await waitUntil { stream.events.count == 1 }, "\(stream.items)")
            #expect(stream.status == 200)
            guard case .head(_, let headers) = stream.items.first else { Issue.record("no head"); return }
            #expect(headers["content-type"] == "text/event-stream")
            #expect(stream.items.contains(.retry(2000)))
            let live = try await createOrder(suite, token: staff, key: "o2")
            #expect(await waitUntil { stream.events.count == 2 }, "\(stream.items)")
            #expect(orderIDs(stream.events) == [first, live])
            #expect(stream.events.allSatisfy { $0.type == "notification" })
            // Each event's id is its notification's seq, increasing.
            let ids = stream.events.compactMap { $0.id.flatMap { Int64($0) } }
            for (event, id) in zip(stream.events, ids) {
                let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
                #expect(object?["seq"] as? Int64 == id && object?["type"] as? String == "order.created")
            }
            #expect(ids == ids.sorted() && ids.count == 2)
            // Quiet, it shows it is alive (every second here; 15 s by default).
            #expect(await waitUntil { stream.items.contains(.comment("heartbeat")) }, "\(stream.items)")
            stream.close()

            // Two orders while the client is away; resumed after the last id it saw, it gets
            // exactly those, then what comes live.
            let missed = [
                try await createOrder(suite, token: staff, key: "o3"),
                try await createOrder(suite, token: staff, key: "o4"),
            ]
            let resumed = try await EventStreamClient.open(
                port: suite.httpPort, path: "/v1/notifications/stream?after=0",
                headers: auth.merging(["Last-Event-ID": "\(ids[1])"]) { $1 })
            #expect(await waitUntil { resumed.events.count == 2 }, "\(resumed.items)")
            let later = try await createOrder(suite, token: staff, key: "o5")
            #expect(await waitUntil { resumed.events.count == 3 }, "\(resumed.items)")
            #expect(orderIDs(resumed.events) == missed + [later])

            // `after` alone resumes too; the inbox reads the same with the same cursor.
            let fromQuery = try await EventStreamClient.open(
                port: suite.httpPort, path: "/v1/notifications/stream?after=\(ids[0])", headers: auth)
            #expect(await waitUntil { fromQuery.events.count == 4 }, "\(fromQuery.items)")
            #expect(orderIDs(fromQuery.events) == [live] + missed + [later])
            let inbox = try await api.send(suite, "GET", "/v1/notifications?after=\(ids[0])", token: staff)
            #expect(
                (inbox.object["data"] as? [[String: Any]])?.map { $0["seq"] as? Int64 }
                    == fromQuery.events.map { $0.id.flatMap { Int64($0) } })
            #expect(inbox.object["next_cursor"] as? Int64 == fromQuery.events.last?.id.flatMap { Int64($0) })
            resumed.close()
            fromQuery.close()

            // A Last-Event-ID that is no event's id is refused, naming it.
            let bad = try await api.send(
                suite, "GET", "/v1/notifications/stream", token: staff, headers: ["Last-Event-ID": "yesterday"])
            #expect(
                bad.status == 400 && (bad.error["details"] as? [String: Any])?["Last-Event-ID"] != nil, "\(bad.text)")
            let anonymous = try await api.send(suite, "GET", "/v1/notifications/stream")
            #expect(anonymous.status == 401)
        }
    }

    @Test("at most four streams per user; at shutdown every stream ends cleanly and the gateway stops")
    func capAndShutdown() async throws {
        try await RunningSuite.with { suite in
            let staff = try await staffMember(suite)
            let auth = ["Authorization": "Bearer \(staff)"]
            // Streams closed by their clients are let go (noticed at the next heartbeat at the latest).
            let early = try await EventStreamClient.open(
                port: suite.httpPort, path: "/v1/notifications/stream", headers: auth)
            #expect(await waitUntil { await suite.streamsOpen() == 1 })
            early.close()
            #expect(await waitUntil(within: .seconds(30)) { await suite.streamsOpen() == 0 })

            var streams: [EventStreamClient] = []
            for _ in 0..<4 {
                streams.append(
                    try await EventStreamClient.open(
                        port: suite.httpPort, path: "/v1/notifications/stream", headers: auth))
            }
            #expect(await waitUntil { await suite.streamsOpen() == 4 })
            let refused = try await api.send(suite, "GET", "/v1/notifications/stream", token: staff)
            #expect(
                refused.status == 429 && refused.error["reason"] as? String == "too_many_streams", "\(refused.text)")

            let started = ContinuousClock.now
            try await suite.restart("gateway", signal: SIGTERM) {
                #expect(await waitUntil { streams.allSatisfy(\.ended) }, "\(streams.map(\.items))")
            }
            #expect(ContinuousClock.now - started < .seconds(20))
            // Back, it serves streams again.
            let again = try await EventStreamClient.open(
                port: suite.httpPort, path: "/v1/notifications/stream", headers: auth)
            #expect(await waitUntil { again.status == 200 })
            again.close()
        }
    }

    @Test("a password change ends the user's open stream and held long-poll, not at the token's expiry")
    func sessionEndsStream() async throws {
        try await RunningSuite.with { suite in
            let staff = try await staffMember(suite)
            let admin = try await api.admin(suite)
            let me = try await api.send(suite, "GET", "/v1/me", token: staff).object["id"] as! String
            let stream = try await EventStreamClient.open(
                port: suite.httpPort, path: "/v1/notifications/stream", headers: ["Authorization": "Bearer \(staff)"])
            #expect(await waitUntil { stream.status == 200 })
            let held = Task {
                try await api.send(suite, "GET", "/v1/notifications?after=999999&wait=30", token: staff)
            }
            #expect(await waitUntil { await suite.longPollsWaiting() == 1 })
            let started = ContinuousClock.now
            let changed = try await api.send(
                suite, "PATCH", "/v1/users/\(me)", token: admin, json: ["password": "Another-pass-123"])
            #expect(changed.status == 200, "\(changed.text)")
            #expect(await waitUntil(within: .seconds(20)) { stream.ended }, "\(stream.items)")
            let answer = try await held.value
            #expect(answer.status == 401, "\(answer.text)")
            #expect(ContinuousClock.now - started < .seconds(20))
            stream.close()
        }
    }

    @Test("read state: up to a seq or by ids, read_at set, unread_count follows")
    func readState() async throws {
        try await RunningSuite.with { suite in
            let staff = try await staffMember(suite)
            for key in ["r1", "r2", "r3", "r4"] { _ = try await createOrder(suite, token: staff, key: key) }
            let inbox = try #require(
                await eventually {
                    let reply = try? await api.send(suite, "GET", "/v1/notifications", token: staff)
                    return (reply?.object["data"] as? [[String: Any]])?.count == 4 ? reply : nil
                })
            #expect(inbox.object["unread_count"] as? Int == 4 && inbox.object["has_more"] as? Bool == false)
            let notifications = inbox.object["data"] as! [[String: Any]]
            let seqs = notifications.map { $0["seq"] as! Int64 }
            #expect(notifications.allSatisfy { $0["read_at"] == nil || $0["read_at"] is NSNull })

            let upTo = try await api.send(
                suite, "POST", "/v1/notifications/read", token: staff, json: ["up_to_seq": seqs[1]])
            #expect(
                upTo.status == 200 && upTo.object["marked"] as? Int == 2 && upTo.object["unread_count"] as? Int == 2)
            let again = try await api.send(
                suite, "POST", "/v1/notifications/read", token: staff, json: ["up_to_seq": seqs[1]])
            #expect(again.object["marked"] as? Int == 0 && again.object["unread_count"] as? Int == 2)
            let byID = try await api.send(
                suite, "POST", "/v1/notifications/read", token: staff,
                json: ["ids": [notifications[3]["id"] as! String, UUID().uuidString.lowercased()]])
            #expect(byID.object["marked"] as? Int == 1 && byID.object["unread_count"] as? Int == 1, "\(byID.text)")

            let after = try await api.send(suite, "GET", "/v1/notifications?limit=2", token: staff)
            #expect(after.object["unread_count"] as? Int == 1 && after.object["has_more"] as? Bool == true)
            #expect(after.object["next_cursor"] as? Int64 == seqs[1])
            let read = (after.object["data"] as! [[String: Any]]).map { $0["read_at"] as? String }
            #expect(read.allSatisfy { $0 != nil })
            let rest = try await api.send(suite, "GET", "/v1/notifications?after=\(seqs[1])", token: staff)
            #expect((rest.object["data"] as! [[String: Any]]).map { $0["read_at"] is String } == [false, true])

            // Someone else's notifications are not theirs to mark.
            let admin = try await api.admin(suite)
            let other = try await api.send(
                suite, "POST", "/v1/notifications/read", token: admin,
                json: ["ids": [notifications[2]["id"] as! String]])
            #expect(other.object["marked"] as? Int == 0)
            let unchanged = try await api.send(suite, "GET", "/v1/notifications", token: staff)
            #expect(unchanged.object["unread_count"] as? Int == 1)

            for (body, field) in [
                ([String: Any](), "up_to_seq"), (["up_to_seq": seqs[0], "ids": [notifications[0]["id"]!]], "ids"),
                (["up_to_seq": 0], "up_to_seq"), (["ids": [String]()], "ids"), (["ids": ["nope"]], "ids"),
            ] as [([String: Any], String)] {
                let refused = try await api.send(suite, "POST", "/v1/notifications/read", token: staff, json: body)
                #expect(refused.status == 400, "\(body): \(refused.text)")
                #expect(
                    (refused.error["details"] as? [String: Any])?.keys.contains { $0.hasPrefix(field) } == true,
                    "\(body): \(refused.text)")
            }
        }
    }

    @Test(
        "a user's locale: chosen at creation, changed by themselves, a tag or refused naming it; notifications follow it"
    )
    func locale() async throws {
        try await InProcessSuite.with { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "Falafel Levi"])
            let owner = try await api.createUser(
                suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store, "locale": "he"])
            #expect(owner["locale"] as? String == "he")
            let staff = try await api.createUser(
                suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
            #expect(staff["locale"] as? String == "en")
            for bad in ["english", "EN", "h", "he_IL", "he-", "ar-EGYPTIANS", ""] {
                let refused = try await api.send(
                    suite, "POST", "/v1/users", token: admin,
                    json: ["email": "x@a.com", "name": "X", "password": "password-1", "role": "courier", "locale": bad])
                #expect(
                    refused.status == 400 && (refused.error["details"] as? [String: Any])?["locale"] != nil,
                    "\(bad): \(refused.text)")
            }
            let staffToken = try await api.token(suite, "staff@a.com")
            let changed = try await api.send(
                suite, "PATCH", "/v1/users/\(staff["id"] as! String)", token: staffToken, json: ["locale": "ar-EG"])
            #expect(changed.status == 200 && changed.object["locale"] as? String == "ar-EG", "\(changed.text)")
            // Users and their locales reach the notifications service as events of the gateway's
            // stream, the order as one of the orders service's: nothing orders the two, so wait.
            let learned = await waitUntil {
                let rows = try? await suite.notifier.notifications.database.read { sql in
                    try await sql.raw("SELECT user_id, locale FROM recipients").all()
                }
                let locales = (rows ?? []).reduce(into: [String: String]()) { locales, row in
                    locales[(try? row.decode(column: "user_id", as: String.self)) ?? ""] =
                        try? row.decode(column: "locale", as: String.self)
                }
                return locales[owner["id"] as! String] == "he" && locales[staff["id"] as! String] == "ar-EG"
            }
            #expect(learned)

            // Each is told of a new order in their language.
            let order = try await api.send(
                suite, "POST", "/v1/orders", token: staffToken, json: API.delivery(boxes: 2),
                headers: ["Idempotency-Key": "o1"])
            try #require(order.status == 201, "\(order.text)")
            let number = order.object["number"] as! Int
            let ownerToken = try await api.token(suite, "owner@a.com")
            for (token, title) in [(ownerToken, "הזמנה חדשה #\(number)"), (staffToken, "طلب جديد #\(number)")] {
                let told = await eventually {
                    let inbox = try? await api.send(suite, "GET", "/v1/notifications", token: token)
                    return (inbox?.object["data"] as? [[String: Any]])?.first
                }
                #expect(told?["title"] as? String == title && told?["title_key"] as? String == "order.created.title")
            }
        }
    }

    @Test("an owner's dashboard hears of a shift begun and a product created as they happen, and resumes after a break")
    func liveActivity() async throws {
        try await RunningSuite.with { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "Kiosk", "address": "1 Herzl St"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@k.com", "role": "owner", "store_id": store])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "staff@k.com", "role": "staff", "store_id": store])
            let (owner, staff) = (try await api.token(suite, "owner@k.com"), try await api.token(suite, "staff@k.com"))
            let path = "/v1/stores/\(store)/activity/stream"
            let refused = try await EventStreamClient.open(
                port: suite.httpPort, path: path, headers: ["Authorization": "Bearer \(staff)"])
            #expect(await waitUntil { refused.status != nil } && refused.status == 404)
            refused.close()

            let stream = try await EventStreamClient.open(
                port: suite.httpPort, path: path, headers: ["Authorization": "Bearer \(owner)"])
            #expect(await waitUntil { stream.status == 200 })
            let clockIn = try await api.send(suite, "POST", "/v1/shifts/clock-in", token: staff, json: [:])
            #expect(clockIn.status == 201)
            #expect(await waitUntil { stream.events.count == 1 }, "\(stream.items)")
            let first = stream.events.first
            #expect(first?.type == "activity" && first?.id == "1")
            let entry = try JSONSerialization.jsonObject(with: Data((first?.data ?? "").utf8)) as? [String: Any]
            // The staff member by name, or as "a staff member" while the roster has yet to hear of them.
            #expect(entry?["type"] as? String == "clock_in")
            #expect(["Someone", "A staff member"].contains(entry?["subtitle"] as? String ?? ""))
            stream.close()

            // Away, a product is added; back after the last id seen, the dashboard gets just that.
            let product = try await api.send(
                suite, "POST", "/v1/stores/\(store)/products", token: owner, json: ["name": "Tea", "price": 500])
            #expect(product.status == 201)
            let resumed = try await EventStreamClient.open(
                port: suite.httpPort, path: path, headers: ["Authorization": "Bearer \(owner)", "Last-Event-ID": "1"])
            #expect(await waitUntil { resumed.events.count == 1 }, "\(resumed.items)")
            let added =
                try JSONSerialization.jsonObject(with: Data((resumed.events.first?.data ?? "").utf8))
                as? [String: Any]
            #expect(added?["type"] as? String == "product_created" && added?["subtitle"] as? String == "Tea")
            #expect(added?["amount"] as? Int == 500 && resumed.events.first?.id == "2")
            resumed.close()
        }
    }
}
