import Domain
import Foundation
import Storage
import TestSupport
import Testing

/// Orders after creation, through the gateway's routes with every service in this process:
/// items and totals, every action and its refusals, the claim race, versions, history, filters,
/// the change feed, earnings and store isolation on every route.
@Suite("Order lifecycle", .serialized)
struct OrderLifecycleTests {
    let api: API

    init() throws { api = try API() }

    /// The people of a test: two stores, their staff, couriers and a customer.
    struct Cast {
        var admin: String
        var store: String
        var otherStore: String
        var staff: String
        var otherOwner: String
        var couriers: [String]
        var courierIDs: [String]
        var offDuty: String
    }

    func cast(_ suite: any Suite, couriers count: Int) async throws -> Cast {
        let admin = try await api.admin(suite)
        let store = try await api.createStore(suite, admin: admin, ["name": "A"])
        let other = try await api.createStore(suite, admin: admin, ["name": "B"])
        _ = try await api.createUser(suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
        _ = try await api.createUser(suite, admin: admin, ["email": "owner@b.com", "role": "owner", "store_id": other])
        _ = try await api.createUser(suite, admin: admin, ["email": "resting@x.com", "role": "courier"])
        var couriers: [String] = []
        var courierIDs: [String] = []
        for index in 0..<count {
            let user = try await api.createUser(
                suite, admin: admin, ["email": "c\(index)@x.com", "role": "courier"])
            let token = try await api.token(suite, "c\(index)@x.com")
            let duty = try await api.send(
                suite, "PUT", "/v1/couriers/me/availability", token: token, json: ["on_duty": true])
            try #require(duty.status == 200)
            couriers.append(token)
            courierIDs.append(user["id"] as! String)
        }
        return Cast(
            admin: admin, store: store, otherStore: other,
            staff: try await api.token(suite, "staff@a.com"),
            otherOwner: try await api.token(suite, "owner@b.com"),
            couriers: couriers, courierIDs: courierIDs,
            offDuty: try await api.token(suite, "resting@x.com"))
    }

    func createOrder(_ suite: any Suite, _ token: String, boxes: Int = 8, extra: [String: Any] = [:]) async throws
        -> [String: Any]
    {
        let reply = try await api.send(
            suite, "POST", "/v1/orders", token: token,
            json: API.delivery(boxes: boxes).merging(extra) { $1 },
            headers: ["Idempotency-Key": UUID().uuidString])
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object
    }

    func act(
        _ suite: any Suite, _ token: String, _ order: String, _ action: String, body: [String: Any]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        try await api.send(
            suite, "POST", "/v1/orders/\(order)/actions/\(action)", token: token, json: body,
            sourceLocation: sourceLocation)
    }

    /// The types in the caller's inbox, read again for up to ten seconds until `until` are all there.
    func inboxTypes(_ suite: any Suite, _ token: String, until: Set<String>) async throws -> Set<String> {
        var types = Set<String>()
        _ = try await waitUntil {
            let reply = try await api.send(suite, "GET", "/v1/notifications?after=0&limit=200", token: token)
            types = Set((reply.object["data"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String })
            return until.isSubset(of: types)
        }
        return types
    }

    @Test("items, totals, actions, history and locking", arguments: TestDatabase.kinds)
    func itemsActionsAndHistory(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let cast = try await cast(suite, couriers: 1)
            let order = try await createOrder(suite, cast.staff)
            let id = order["id"] as! String
            #expect(order["allowed_actions"] as? [String] == ["accept", "cancel"])
            #expect(order["items"] as? [Any] != nil)

            // Lines: VAT from the gross amount, half to even; a device purchase counts negative.
            let repair = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: cast.staff,
                json: ["type": "repair", "description": "Screen", "unit_price_gross": 11_800])
            try #require(repair.status == 201, "\(repair.text)")
            let line = (repair.object["items"] as! [[String: Any]])[0]
            #expect(line["vat_rate_bp"] as? Int == 1800 && line["line_net"] as? Int == 10_000)
            #expect(line["line_vat"] as? Int == 1800 && line["quantity"] as? Int == 1)
            let accessory = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: cast.staff,
                json: [
                    "type": "accessory", "description": "Case", "unit_price_gross": 999, "quantity": 3,
                    "vat_rate_bp": 1700,
                ])
            let purchase = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: cast.staff,
                json: ["type": "device_purchase", "description": "Old phone", "unit_price_gross": 50_000])
            try #require(accessory.status == 201 && purchase.status == 201, "\(accessory.text) \(purchase.text)")
            var current = purchase.object
            let lines = current["items"] as! [[String: Any]]
            #expect(lines[1]["line_gross"] as? Int == 2997 && lines[1]["line_net"] as? Int == 2562)
            #expect(lines[2]["line_gross"] as? Int == -50_000 && lines[2]["line_vat"] as? Int == -7627)
            func sum(_ key: String) -> Int {
                (current["items"] as! [[String: Any]]).reduce(0) { $0 + ($1[key] as! Int) }
            }
            #expect(
                current["items_gross"] as? Int == sum("line_gross") && current["items_net"] as? Int == sum("line_net"))
            #expect(current["items_vat"] as? Int == sum("line_vat"))
            #expect(current["total"] as? Int == sum("line_gross") + 3500)
            #expect(current["version"] as? Int == 4)

            let caseID = lines[1]["id"] as! String
            let changed = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)/items/\(caseID)", token: cast.staff, json: ["quantity": 1],
                headers: ["If-Match": "\"4\""])
            try #require(changed.status == 200, "\(changed.text)")
            current = changed.object
            #expect(current["items_gross"] as? Int == 11_800 + 999 - 50_000)
            #expect(changed.headers["etag"] == "\"5\"")
            let stale = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)/items/\(caseID)", token: cast.staff, json: ["quantity": 2],
                headers: ["If-Match": "\"4\""])
            #expect(stale.status == 409 && stale.error["reason"] as? String == "version_conflict")
            // A client swift-openapi-generator made sends the ETag's quotes percent-encoded.
            let staleEncoded = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)/items/\(caseID)", token: cast.staff, json: ["quantity": 2],
                headers: ["If-Match": "%224%22"])
            #expect(staleEncoded.status == 409 && staleEncoded.error["reason"] as? String == "version_conflict")
            let removed = try await api.send(
                suite, "DELETE", "/v1/orders/\(id)/items/\((lines[2]["id"] as! String))", token: cast.staff)
            #expect(removed.status == 200 && removed.object["items_gross"] as? Int == 12_799, "\(removed.text)")
            let listed = try await api.send(suite, "GET", "/v1/orders/\(id)/items", token: cast.staff)
            #expect((listed.object["data"] as? [Any])?.count == 2)

            let bad = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: cast.staff, json: ["quantity": 0])
            #expect(bad.status == 400)
            let details = bad.error["details"] as? [String: Any] ?? [:]
            #expect(Set(details.keys) == ["type", "description", "unit_price_gross"], "\(bad.text)")
            let badQuantity = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: cast.staff,
                json: ["type": "product", "description": "X", "unit_price_gross": 1, "quantity": 0])
            #expect(badQuantity.status == 400 && (badQuantity.error["details"] as? [String: Any])?["quantity"] != nil)

            // Store isolation: another store's owner cannot see or touch it; a courier cannot edit it.
            for (method, path, body) in [
                ("GET", "/v1/orders/\(id)", nil), ("GET", "/v1/orders/\(id)/items", nil),
                ("GET", "/v1/orders/\(id)/history", nil), ("PATCH", "/v1/orders/\(id)", ["notes": "x"]),
                ("POST", "/v1/orders/\(id)/items", ["type": "repair", "description": "x", "unit_price_gross": 1]),
                ("PATCH", "/v1/orders/\(id)/items/\(caseID)", ["quantity": 2]),
                ("DELETE", "/v1/orders/\(id)/items/\(caseID)", nil),
                ("POST", "/v1/orders/\(id)/actions/accept", nil),
            ] as [(String, String, [String: Any]?)] {
                let reply = try await api.send(suite, method, path, token: cast.otherOwner, json: body)
                #expect(reply.status == 404, "\(method) \(path) by another store: \(reply.status)")
            }
            let foreignList = try await api.send(
                suite, "GET", "/v1/orders?store_id=\(cast.store)", token: cast.otherOwner)
            #expect((foreignList.object["data"] as? [Any])?.isEmpty == true)
            // A pending order is not yet in the couriers' pool: to them it does not exist.
            let unseen = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.couriers[0], json: ["notes": "mine"])
            #expect(unseen.status == 404)

            // The status machine, refusals listing what is legal.
            let early = try await act(suite, cast.couriers[0], id, "claim")
            #expect(early.status == 404)
            let wrong = try await act(suite, cast.staff, id, "deliver")
            #expect(wrong.status == 403)
            let notYet = try await act(suite, cast.staff, id, "mark_ready")
            #expect(notYet.status == 422)
            #expect(
                ((notYet.error["details"] as? [String: Any])?["allowed_actions"] as? [String]) == ["accept", "cancel"])
            let noReason = try await act(suite, cast.staff, id, "cancel")
            #expect(noReason.status == 400 && (noReason.error["details"] as? [String: Any])?["reason"] != nil)
            let accepted = try await act(suite, cast.staff, id, "accept")
            #expect(accepted.status == 200 && accepted.object["status"] as? String == "accepted", "\(accepted.text)")
            let resting = try await act(suite, cast.offDuty, id, "claim")
            #expect(resting.status == 422 && resting.error["reason"] as? String == "off_duty")
            // In the pool, a courier sees the order, without the recipient's phone and apartment,
            // and may not edit it.
            let pooled = try await api.send(suite, "GET", "/v1/orders/\(id)", token: cast.couriers[0])
            #expect(pooled.status == 200 && pooled.object["phone"] == nil && pooled.object["apartment"] == nil)
            #expect(
                pooled.object["allowed_actions"] as? [String] == ["claim"]
                    && pooled.object["can_edit"] as? Bool == false)
            let courierEdit = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.couriers[0], json: ["notes": "mine"])
            #expect(courierEdit.status == 403)

            // A version-checked edit of the order's own fields recomputes the fee.
            let version = accepted.object["version"] as! Int
            let staleEdit = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.staff,
                json: ["boxes_count": 17, "expected_version": version - 1])
            #expect(staleEdit.status == 409)
            #expect(
                ((staleEdit.error["details"] as? [String: Any])?["current"] as? [String: Any])?["version"] as? Int
                    == version)
            let edited = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.staff, json: ["boxes_count": 17, "floor": ""],
                headers: ["If-Match": "\"\(version)\""])
            try #require(edited.status == 200, "\(edited.text)")
            #expect(edited.object["delivery_fee"] as? Int == 10_500 && edited.object["boxes_multiplier"] as? Int == 3)
            #expect(edited.object["total"] as? Int == 12_799 + 10_500)
            #expect(edited.object["floor"] == nil || edited.object["floor"] is NSNull)
            let blank = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.staff, json: ["street": " "])
            #expect(blank.status == 400)

            let claimed = try await act(suite, cast.couriers[0], id, "claim")
            #expect(
                claimed.status == 200 && claimed.object["courier_id"] as? String == cast.courierIDs[0],
                "\(claimed.text)")
            #expect(claimed.object["allowed_actions"] as? [String] == ["release"])
            #expect(
                claimed.object["phone"] as? String == "050-1234567" && claimed.object["apartment"] as? String == "7")
            let toPickup = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.staff, json: ["fulfillment": "pickup"])
            #expect(toPickup.status == 422 && toPickup.error["reason"] as? String == "order_claimed")
            for action in ["start_preparing", "mark_ready"] {
                let reply = try await act(suite, cast.staff, id, action)
                #expect(reply.status == 200, "\(action): \(reply.text)")
            }
            let pickedUp = try await act(suite, cast.couriers[0], id, "pick_up")
            #expect(pickedUp.status == 200 && pickedUp.object["status"] as? String == "out_for_delivery")
            let locked = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: cast.staff,
                json: ["type": "repair", "description": "late", "unit_price_gross": 100])
            #expect(locked.status == 422 && locked.error["reason"] as? String == "order_locked")
            let lateEdit = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.staff, json: ["notes": "x"])
            #expect(lateEdit.status == 422)
            let delivered = try await act(suite, cast.couriers[0], id, "deliver")
            #expect(delivered.status == 200 && delivered.object["delivered_at"] is String, "\(delivered.text)")
            #expect(delivered.object["allowed_actions"] as? [String] == [])

            let history = try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: cast.staff)
            let changes = (history.object["data"] as? [[String: Any]] ?? []).map { $0["change"] as? String ?? "?" }
            #expect(
                changes == [
                    "created", "item_added", "item_added", "item_added", "item_changed", "item_removed", "accept",
                    "updated", "claim", "start_preparing", "mark_ready", "pick_up", "deliver",
                ])
            let claimEntry = (history.object["data"] as? [[String: Any]] ?? []).first {
                $0["change"] as? String == "claim"
            }
            #expect(
                claimEntry?["actor_id"] as? String == cast.courierIDs[0]
                    && claimEntry?["actor_role"] as? String == "courier")
            #expect(claimEntry?["from"] as? String == "accepted" && claimEntry?["to"] as? String == "accepted")

            // The claim reached the store; the status changes reached the store and the courier.
            let staffHeard = try await inboxTypes(
                suite, cast.staff, until: ["order.created", "order.claimed", "order.status_changed"])
            #expect(
                staffHeard.isSuperset(of: ["order.created", "order.claimed", "order.status_changed"]), "\(staffHeard)")
            let courierHeard = try await inboxTypes(suite, cast.couriers[0], until: ["order.status_changed"])
            #expect(courierHeard.contains("order.status_changed") && !courierHeard.contains("order.claimed"))
            let outsiderHeard = try await inboxTypes(suite, cast.otherOwner, until: [])
            #expect(outsiderHeard.isEmpty)

            // Earnings: the 17-box fee, in ILS.
            let now = Date()
            let range =
                "from=\(RFC3339.format(now.addingTimeInterval(-3600)))&to=\(RFC3339.format(now.addingTimeInterval(3600)))"
            let earnings = try await api.send(
                suite, "GET", "/v1/couriers/me/earnings?\(range)", token: cast.couriers[0])
            #expect(earnings.object["deliveries"] as? Int == 1, "\(earnings.text)")
            let totals = earnings.object["totals"] as? [[String: Any]] ?? []
            #expect(totals.first?["delivery_fees"] as? Int == 10_500 && totals.first?["currency"] as? String == "ILS")
            #expect(
                try await api.send(suite, "GET", "/v1/couriers/me/earnings?\(range)", token: cast.staff).status
                    == 403)
            #expect(
                try await api.send(suite, "GET", "/v1/couriers/me/earnings?from=x", token: cast.couriers[0]).status
                    == 400)

            // A pickup order: collected by the store; a customer-free cancel with its reason.
            let pickup = try await createOrder(suite, cast.staff, extra: ["fulfillment": "pickup"])
            // An action sent twice with one key happens once; the repeat gets the first answer.
            var answers: [Int] = []
            for _ in 0..<2 {
                let reply = try await api.send(
                    suite, "POST", "/v1/orders/\(pickup["id"] as! String)/actions/accept", token: cast.staff,
                    headers: ["Idempotency-Key": "accept-once"])
                #expect(reply.status == 200, "\(reply.text)")
                answers.append(reply.object["version"] as? Int ?? 0)
            }
            #expect(answers == [2, 2])
            for action in ["start_preparing", "mark_ready", "mark_collected"] {
                let reply = try await act(suite, cast.staff, pickup["id"] as! String, action)
                #expect(reply.status == 200, "\(action): \(reply.text)")
            }
            let doomed = try await createOrder(suite, cast.staff)
            let cancelled = try await act(
                suite, cast.staff, doomed["id"] as! String, "cancel", body: ["reason": "no stock"])
            #expect(cancelled.object["status"] as? String == "cancelled")
            #expect(cancelled.object["cancellation_reason"] as? String == "no stock")
        }
    }

    @Test("of 50 couriers claiming one order at once exactly one wins", arguments: TestDatabase.kinds)
    func claimRace(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let cast = try await cast(suite, couriers: 50)
            let order = try await createOrder(suite, cast.staff)
            let id = order["id"] as! String
            #expect(try await act(suite, cast.staff, id, "accept").status == 200)
            let available = try await api.send(suite, "GET", "/v1/orders?available=true", token: cast.couriers[7])
            #expect((available.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            let offDuty = try await api.send(suite, "GET", "/v1/orders?available=true", token: cast.offDuty)
            #expect(offDuty.status == 422)

            let statuses = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for (index, token) in cast.couriers.enumerated() {
                    group.addTask {
                        let reply = try await suite.request(
                            "POST", "/v1/orders/\(id)/actions/claim", headers: ["Authorization": "Bearer \(token)"],
                            body: nil)
                        return (index, reply.status)
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            let winners = statuses.filter { $0.value == 200 }.map(\.key)
            #expect(winners.count == 1, "\(statuses)")
            #expect(statuses.values.filter { $0 == 409 }.count == 49, "\(statuses)")
            let final = try await api.send(suite, "GET", "/v1/orders/\(id)", token: cast.staff)
            #expect(final.object["courier_id"] as? String == winners.first.map { cast.courierIDs[$0] })
            // The winner releases it; it is available again and another courier takes it.
            let winner = try #require(winners.first)
            let loser = (winner + 1) % cast.couriers.count
            let released = try await act(suite, cast.couriers[winner], id, "release")
            #expect(released.status == 200 && released.object["courier_id"] == nil, "\(released.text)")
            let again = try await api.send(suite, "GET", "/v1/orders?available=true", token: cast.couriers[loser])
            #expect((again.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
            #expect(try await act(suite, cast.couriers[winner], id, "release").status == 403)
            #expect(try await act(suite, cast.couriers[loser], id, "claim").status == 200)
            let claims = try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: cast.staff)
            let changes = (claims.object["data"] as? [[String: Any]] ?? []).map { $0["change"] as? String ?? "?" }
            #expect(changes == ["created", "accept", "claim", "release", "claim"])
        }
    }

    @Test(
        "a store that dispatches on creation: its delivery order is ready, and a courier on duty hears of it and claims it with no other step"
    )
    func dispatchOnCreation() async throws {
        try await InProcessSuite.with { suite in
            let cast = try await cast(suite, couriers: 1)
            let courier = cast.couriers[0]
            // when_ready, the default: the couriers hear of nothing and cannot open it.
            let waiting = try await createOrder(suite, cast.staff)
            #expect(waiting["status"] as? String == "pending")
            let unseen = try await api.send(suite, "GET", "/v1/orders/\(waiting["id"] as! String)", token: courier)
            #expect(unseen.status == 404)

            let bad = try await api.send(
                suite, "PATCH", "/v1/stores/\(cast.store)", token: cast.admin, json: ["dispatch": "at_once"])
            #expect(bad.status == 400 && (bad.error["details"] as? [String: Any])?["dispatch"] != nil, "\(bad.text)")
            let changed = try await api.send(
                suite, "PATCH", "/v1/stores/\(cast.store)", token: cast.admin, json: ["dispatch": "on_create"])
            try #require(
                changed.status == 200 && changed.object["dispatch"] as? String == "on_create", "\(changed.text)")

            // The orders service learns of the change from the store's event; wait for a ready order.
            var order: [String: Any] = [:]
            _ = try await waitUntil {
                order = try await createOrder(suite, cast.staff)
                return order["status"] as? String == "ready"
            }
            let id = try #require(order["id"] as? String)
            #expect(order["allowed_actions"] as? [String] == ["cancel"])
            let history = try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: cast.staff)
            let first = try #require((history.object["data"] as? [[String: Any]])?.first)
            #expect(first["change"] as? String == "created" && first["to"] as? String == "ready")
            #expect((first["details"] as? [String: Any])?["dispatch"] as? String == "on_create")
            // A pickup order still waits for the store.
            let pickup = try await createOrder(suite, cast.staff, extra: ["fulfillment": "pickup"])
            #expect(pickup["status"] as? String == "pending")

            // The courier on duty is told of the ready order, and of no pending one.
            var told: [[String: Any]] = []
            _ = try await waitUntil {
                let inbox = try await api.send(suite, "GET", "/v1/notifications?after=0&limit=200", token: courier)
                told = inbox.object["data"] as? [[String: Any]] ?? []
                return told.contains { ($0["data"] as? [String: Any])?["order_id"] as? String == id }
            }
            let about = told.compactMap { ($0["data"] as? [String: Any])?["order_id"] as? String }
            #expect(!about.contains(waiting["id"] as! String) && !about.contains(pickup["id"] as! String))
            let news = try #require(told.first { ($0["data"] as? [String: Any])?["order_id"] as? String == id })
            #expect(
                news["type"] as? String == "order.created"
                    && (news["title"] as? String)?.hasPrefix("New delivery") == true)

            // It claims, picks up and delivers it; the store did nothing more.
            for action in ["claim", "pick_up", "deliver"] {
                let reply = try await act(suite, courier, id, action)
                #expect(reply.status == 200, "\(action): \(reply.text)")
            }

            // Its earnings are per day of the courier's time zone: of the query's, else the
            // profile's, else UTC. UTC+14 and UTC-11 never share a date.
            let range =
                "from=\(Self.iso(Date().addingTimeInterval(-3600)))&to=\(Self.iso(Date().addingTimeInterval(3600)))"
            func day(_ zone: String) -> String {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: zone)!
                let parts = calendar.dateComponents([.year, .month, .day], from: Date())
                return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            }
            func earnings(_ query: String = "") async throws -> (zone: String?, days: [String]) {
                let reply = try await api.send(
                    suite, "GET", "/v1/couriers/me/earnings?\(range)\(query)", token: courier)
                try #require(reply.status == 200, "\(reply.text)")
                let days = (reply.object["days"] as? [[String: Any]] ?? []).compactMap { $0["date"] as? String }
                return (reply.object["tz"] as? String, days)
            }
            let utc = try await earnings()
            #expect(utc.zone == "UTC" && utc.days.count == 1)
            let east = try await earnings("&tz=Pacific/Kiritimati")
            #expect(east.zone == "Pacific/Kiritimati" && east.days == [day("Pacific/Kiritimati")])
            let badZone = try await api.send(
                suite, "GET", "/v1/couriers/me/earnings?\(range)&tz=Mars/Olympus", token: courier)
            #expect(badZone.status == 400 && (badZone.error["details"] as? [String: Any])?["tz"] != nil)
            let refused = try await api.send(
                suite, "PATCH", "/v1/users/\(cast.courierIDs[0])", token: courier, json: ["tz": "Mars/Olympus"])
            #expect(refused.status == 400 && (refused.error["details"] as? [String: Any])?["tz"] != nil)
            let profile = try await api.send(
                suite, "PATCH", "/v1/users/\(cast.courierIDs[0])", token: courier, json: ["tz": "Pacific/Pago_Pago"])
            #expect(profile.status == 200 && profile.object["tz"] as? String == "Pacific/Pago_Pago", "\(profile.text)")
            let west = try await earnings()
            #expect(west.zone == "Pacific/Pago_Pago" && west.days == [day("Pacific/Pago_Pago")])
            #expect(west.days != east.days)
        }
    }

    @Test(
        "counts on every list, and archiving a pending or cancelled order off the store's lists",
        arguments: TestDatabase.kinds)
    func countsAndArchiving(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let cast = try await cast(suite, couriers: 1)
            let orders = [
                try await createOrder(suite, cast.staff), try await createOrder(suite, cast.staff),
                try await createOrder(suite, cast.staff),
            ].map { $0["id"] as! String }
            func get(_ path: String, _ token: String) async throws -> [String: Any] {
                let reply = try await api.send(suite, "GET", path, token: token)
                try #require(reply.status == 200, "\(path): \(reply.text)")
                return reply.object
            }

            // A total only when asked; the page's filters apply to it, its limit does not.
            #expect(try await get("/v1/orders", cast.staff)["total"] == nil)
            let counted = try await get("/v1/orders?count=true&status=pending&limit=1", cast.staff)
            #expect(
                counted["total"] as? Int == 3 && counted["total_estimated"] as? Bool == false
                    && (counted["data"] as? [Any])?.count == 1, "\(counted)")
            let notBool = try await api.send(suite, "GET", "/v1/orders?count=yes", token: cast.staff)
            #expect(notBool.status == 400 && (notBool.error["details"] as? [String: Any])?["count"] != nil)

            // Every list route counts what it lists.
            let mark = try await get("/v1/orders/changes?since=0", cast.staff)["next_cursor"] as! String
            for path in [
                "/v1/users", "/v1/stores", "/v1/stores?open_now=true", "/v1/stores/\(cast.store)/staff",
                "/v1/stores/\(cast.store)/products", "/v1/stores/\(cast.store)/stock-ledger",
                "/v1/stores/\(cast.store)/payments", "/v1/stores/\(cast.store)/receipts",
                "/v1/stores/\(cast.store)/shifts", "/v1/stores/\(cast.store)/customers",
                "/v1/stores/\(cast.store)/cards", "/v1/stores/\(cast.store)/webhooks",
                "/v1/stores/\(cast.store)/balance", "/v1/couriers/\(cast.courierIDs[0])/balance", "/v1/applications",
                "/v1/orders/\(orders[0])/history",
            ] {
                let page = try await get(path + (path.contains("?") ? "&" : "?") + "count=true&limit=200", cast.admin)
                let listed = (page["data"] as? [Any])?.count
                #expect(
                    page["total"] as? Int == listed && page["total_estimated"] as? Bool == false, "\(path): \(page)")
            }
            #expect(try await get("/v1/users?count=true&limit=1", cast.admin)["total"] as? Int ?? 0 > 1)
            let products = try await api.send(
                suite, "GET", "/v1/stores/\(cast.store)/products?since=0&count=true", token: cast.staff)
            #expect(products.status == 400 && (products.error["details"] as? [String: Any])?["since"] != nil)

            // A pending order is cancelled by archiving it, in one change.
            let archive = { (id: String, token: String) in
                try await api.send(suite, "DELETE", "/v1/orders/\(id)", token: token)
            }
            let first = try await archive(orders[0], cast.staff)
            try #require(first.status == 200, "\(first.text)")
            #expect(first.object["status"] as? String == "cancelled" && first.object["archived_at"] is String)
            #expect(first.object["cancellation_reason"] as? String == "archived by the store")
            let history = try await get("/v1/orders/\(orders[0])/history?count=true", cast.staff)
            let last = try #require((history["data"] as? [[String: Any]])?.last)
            #expect(last["change"] as? String == "archive" && last["from"] as? String == "pending")
            #expect(last["to"] as? String == "cancelled" && history["total"] as? Int == 2)
            // Archived again, it is answered as it is.
            let again = try await archive(orders[0], cast.staff)
            #expect(again.status == 200 && again.object["version"] as? Int == first.object["version"] as? Int)

            // A cancelled order is archived as it is; an accepted one is not.
            #expect(try await act(suite, cast.staff, orders[1], "cancel", body: ["reason": "gone"]).status == 200)
            let second = try await archive(orders[1], cast.staff)
            #expect(second.status == 200 && second.object["cancellation_reason"] as? String == "gone", "\(second.text)")
            #expect(try await act(suite, cast.staff, orders[2], "accept").status == 200)
            let accepted = try await archive(orders[2], cast.staff)
            #expect(accepted.status == 422 && accepted.error["reason"] as? String == "illegal_transition")
            #expect((accepted.error["details"] as? [String: Any])?["status"] as? String == "accepted")
            // A courier who sees the order in the pool may not; another store's owner does not see it.
            #expect(try await archive(orders[2], cast.couriers[0]).status == 403)
            #expect(try await archive(orders[2], cast.otherOwner).status == 404)

            // Lists leave archived orders out, `archived=true` lists them alone, the order is kept,
            // and the change feed carries both so that offline clients drop them.
            let listed = try await get("/v1/orders?count=true", cast.staff)
            #expect((listed["data"] as? [[String: Any]])?.map { $0["id"] as! String } == [orders[2]])
            #expect(listed["total"] as? Int == 1)
            let archived = try await get("/v1/orders?archived=true&count=true", cast.staff)
            #expect(Set((archived["data"] as? [[String: Any]] ?? []).map { $0["id"] as! String }) == Set(orders[0...1]))
            #expect(archived["total"] as? Int == 2)
            #expect(try await get("/v1/orders/\(orders[1])", cast.staff)["archived_at"] is String)
            let feed = try await get("/v1/orders/changes?since=\(mark)", cast.staff)
            let changed = (feed["data"] as? [[String: Any]] ?? []).filter { $0["archived_at"] is String }
            #expect(Set(changed.map { $0["id"] as! String }) == Set(orders[0...1]))
        }
    }

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    @Test("filters, search, sorting and the offline change feed")
    func findingAndSyncing() async throws {
        try await InProcessSuite.with { suite in
            let cast = try await cast(suite, couriers: 2)
            let due = Date().addingTimeInterval(86_400)
            var ids: [String] = []
            for index in 0..<5 {
                let order = try await createOrder(
                    suite, cast.staff, boxes: 1 + index,
                    extra: [
                        "recipient_first_name": index == 3 ? "Yael" : "Dana", "recipient_last_name": "Mizrahi",
                        "phone": "052-000-000\(index)",
                        "due_at": RFC3339.format(due.addingTimeInterval(Double(-index) * 3600)),
                    ])
                ids.append(order["id"] as! String)
            }
            let pickup = try await createOrder(suite, cast.staff, extra: ["fulfillment": "pickup"])
            #expect(try await act(suite, cast.staff, ids[0], "accept").status == 200)

            func list(_ query: String, _ token: String? = nil) async throws -> [String] {
                let reply = try await api.send(suite, "GET", "/v1/orders?\(query)", token: token ?? cast.staff)
                #expect(reply.status == 200, "\(query): \(reply.text)")
                return (reply.object["data"] as? [[String: Any]] ?? []).map { $0["id"] as! String }
            }
            #expect(try await list("status=accepted") == [ids[0]])
            #expect(try await list("status=accepted,pending&fulfillment=delivery").count == 5)
            #expect(try await list("fulfillment=pickup") == [pickup["id"] as! String])
            #expect(try await list("q=yael") == [ids[3]])
            // A query string as browsers write it: `+` is a space, `%2B` a plus.
            #expect(try await list("q=yael+mizrahi") == [ids[3]])
            #expect(try await list("q=yael%20mizrahi") == [ids[3]])
            #expect(try await list("q=yael%2Bmizrahi").isEmpty)
            #expect(try await list("q=052-000-0002") == [ids[2]])
            #expect(try await list("q=%232") == [ids[1]])
            #expect(try await list("sort=due_at&fulfillment=delivery") == Array(ids.reversed()))
            #expect(try await list("sort=created_at&limit=2") == Array(ids.prefix(2)))
            let dueWindow =
                "due_from=\(RFC3339.format(due.addingTimeInterval(-3 * 3600 - 1)))&due_to=\(RFC3339.format(due))"
            #expect(Set(try await list(dueWindow)) == Set(ids[1...3]))
            #expect(try await list("created_to=2000-01-01T00:00:00Z").isEmpty)
            let badQuery = try await api.send(
                suite, "GET", "/v1/orders?sort=price&due_from=soon", token: cast.staff)
            #expect(Set((badQuery.error["details"] as? [String: Any] ?? [:]).keys) == ["sort", "due_from"])

            // Keyset pages cover every order exactly once.
            var seen: [String] = []
            var cursor: String?
            repeat {
                let reply = try await api.send(
                    suite, "GET", "/v1/orders?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: cast.staff)
                seen += (reply.object["data"] as? [[String: Any]] ?? []).map { $0["id"] as! String }
                cursor = reply.object["next_cursor"] as? String
            } while cursor != nil
            #expect(seen.count == 6 && Set(seen).count == 6)

            // The change feed: everything from 0, then only what changed.
            let everything = try await api.send(suite, "GET", "/v1/orders/changes?since=0", token: cast.staff)
            #expect(
                (everything.object["data"] as? [Any])?.count == 6 && everything.object["has_more"] as? Bool == false)
            let mark = everything.object["next_cursor"] as! String
            let quiet = try await api.send(suite, "GET", "/v1/orders/changes?since=\(mark)", token: cast.staff)
            #expect((quiet.object["data"] as? [Any])?.isEmpty == true && quiet.object["next_cursor"] as? String == mark)
            let courierMark =
                try await api.send(suite, "GET", "/v1/orders/changes?since=0", token: cast.couriers[1])
                .object["next_cursor"] as! String
            #expect(try await act(suite, cast.couriers[0], ids[0], "claim").status == 200)
            #expect(try await act(suite, cast.staff, ids[4], "cancel", body: ["reason": "gone"]).status == 200)
            let changed = try await api.send(suite, "GET", "/v1/orders/changes?since=\(mark)", token: cast.staff)
            let changedIDs = (changed.object["data"] as? [[String: Any]] ?? []).map { $0["id"] as! String }
            #expect(changedIDs == [ids[0], ids[4]])
            // The other courier learns that the claimed one left the pool; the cancelled one,
            // still pending, was never in it.
            let courierFeed = try await api.send(
                suite, "GET", "/v1/orders/changes?since=\(courierMark)", token: cast.couriers[1])
            #expect((courierFeed.object["data"] as? [Any])?.isEmpty == true, "\(courierFeed.text)")
            #expect(courierFeed.object["removed"] as? [String] == [ids[0]])
            let winnerFeed = try await api.send(
                suite, "GET", "/v1/orders/changes?since=\(courierMark)", token: cast.couriers[0])
            #expect((winnerFeed.object["data"] as? [[String: Any]])?.map { $0["id"] as! String } == [ids[0]])
            let foreignFeed = try await api.send(suite, "GET", "/v1/orders/changes?since=0", token: cast.otherOwner)
            #expect((foreignFeed.object["data"] as? [Any])?.isEmpty == true)
            for bad in ["abc", "", "+5", "-1", "1234567890123456789"] {
                let refused = try await api.send(suite, "GET", "/v1/orders/changes?since=\(bad)", token: cast.staff)
                #expect(refused.status == 400, "since=\(bad)")
            }
            #expect(try await api.send(suite, "GET", "/v1/orders/changes", token: cast.staff).status == 400)

            // An order made offline and sent three times exists once.
            let offlineID = UUID().uuidString.lowercased()
            var body = API.delivery(boxes: 2)
            body["id"] = offlineID
            for _ in 0..<3 {
                let reply = try await api.send(
                    suite, "POST", "/v1/orders", token: cast.staff, json: body,
                    headers: ["Idempotency-Key": "offline-1"])
                #expect(reply.status == 201 && reply.object["id"] as? String == offlineID)
            }
            let afterOffline = try await api.send(suite, "GET", "/v1/orders/changes?since=\(mark)", token: cast.staff)
            #expect(
                (afterOffline.object["data"] as? [[String: Any]] ?? []).filter { $0["id"] as? String == offlineID }
                    .count == 1)
        }
    }
}
