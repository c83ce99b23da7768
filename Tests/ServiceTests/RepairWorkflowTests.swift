import Domain
import Foundation
import Storage
import TestSupport
import Testing

/// A repair shop's orders end to end: the store's workflow, a customer's device kept and named by
/// a line, the repair statuses to despatched and the lock after it, and no courier ever seeing
/// one.
extension OrderLifecycleTests {
    @Test(
        "a repair: booked in, waiting for parts, repaired, ready and despatched, with the customer's device on its line",
        arguments: TestDatabase.kinds)
    func repairWorkflow(on kind: Database.Kind) async throws {
        try await InProcessSuite.with(on: kind) { suite in
            let cast = try await cast(suite, couriers: 1)
            let courier = cast.couriers[0]
            let bad = try await api.send(
                suite, "PATCH", "/v1/stores/\(cast.store)", token: cast.admin, json: ["workflow": "repairs"])
            #expect(bad.status == 400 && (bad.error["details"] as? [String: Any])?["workflow"] != nil, "\(bad.text)")
            let changed = try await api.send(
                suite, "PATCH", "/v1/stores/\(cast.store)", token: cast.admin, json: ["workflow": "repair"])
            try #require(changed.status == 200 && changed.object["workflow"] as? String == "repair", "\(changed.text)")

            // The customer's device, found again by its serial however it is typed.
            let customer = try await post(
                suite, "/v1/stores/\(cast.store)/customers", cast.staff, ["name": "Noa Cohen"])
            let noDevice = try await api.send(
                suite, "POST", "/v1/stores/\(cast.store)/customer-devices", token: cast.staff,
                json: ["customer_id": UUID().uuidString, "make": " ", "serial": "x"])
            #expect(noDevice.status == 400, "\(noDevice.text)")
            #expect(
                Set(((noDevice.error["details"] as? [String: Any]) ?? [:]).keys) == ["make", "model"],
                "\(noDevice.text)")
            let stranger = try await api.send(
                suite, "POST", "/v1/stores/\(cast.store)/customer-devices", token: cast.staff,
                json: ["customer_id": UUID().uuidString, "make": "Apple", "model": "iPhone 13"])
            #expect(
                stranger.status == 422 && stranger.error["reason"] as? String == "unknown_customer", "\(stranger.text)")
            let device = try await post(
                suite, "/v1/stores/\(cast.store)/customer-devices", cast.staff,
                ["customer_id": customer["id"]!, "make": "Apple", "model": "iPhone 13", "serial": "35-209900-176148-1"])
            let deviceID = try #require(device["id"] as? String)
            let found = try await api.send(
                suite, "GET", "/v1/stores/\(cast.store)/customer-devices?serial=352099%20001761481", token: cast.staff)
            #expect((found.object["data"] as? [[String: Any]])?.map { $0["id"] as? String } == [deviceID])

            // Born booked in once the orders service has heard of the store's workflow.
            var order: [String: Any] = [:]
            _ = try await waitUntil {
                order = try await createOrder(suite, cast.staff)
                return order["status"] as? String == "booked_in"
            }
            let id = try #require(order["id"] as? String)
            #expect(order["workflow"] as? String == "repair")
            #expect(order["allowed_actions"] as? [String] == ["start_repair", "await_parts", "cancel"])
            let standard = try await createOrder(suite, cast.staff, extra: ["workflow": "standard"])
            #expect(standard["status"] as? String == "pending" && standard["workflow"] as? String == "standard")
            let switched = try await api.send(
                suite, "PATCH", "/v1/orders/\(standard["id"] as! String)", token: cast.staff,
                json: ["workflow": "repair"])
            #expect(
                switched.status == 400
                    && (switched.error["details"] as? [String: Any])?["workflow"] as? String == "cannot change",
                "\(switched.text)")

            // Its line names the device; a device of another store, or no device at all, is refused.
            let line = try await api.send(
                suite, "POST", "/v1/orders/\(id)/items", token: cast.staff,
                json: ["type": "repair", "description": "Screen", "unit_price_gross": 45_000, "device_id": deviceID])
            try #require(line.status == 201, "\(line.text)")
            #expect((line.object["items"] as? [[String: Any]])?.first?["device_id"] as? String == deviceID)
            let elsewhere = try await post(
                suite, "/v1/stores/\(cast.otherStore)/customers", cast.otherOwner, ["name": "Other"])
            let foreign = try await post(
                suite, "/v1/stores/\(cast.otherStore)/customer-devices", cast.otherOwner,
                ["customer_id": elsewhere["id"]!, "make": "Samsung", "model": "S21"])
            for (token, named) in [
                (cast.staff, foreign["id"] as! String), (cast.admin, foreign["id"] as! String),
                (cast.staff, "my phone"),
            ] {
                let refused = try await api.send(
                    suite, "POST", "/v1/orders/\(id)/items", token: token,
                    json: ["type": "repair", "description": "Battery", "unit_price_gross": 9_000, "device_id": named])
                #expect(
                    refused.status == 400 && (refused.error["details"] as? [String: Any])?["device_id"] != nil,
                    "\(named): \(refused.text)")
            }

            // No courier sees it, claims it or hears of it, at any status.
            for action in ["await_parts", "start_repair", "mark_ready"] {
                let moved = try await act(suite, cast.staff, id, action)
                #expect(moved.status == 200, "\(action): \(moved.text)")
                #expect(try await api.send(suite, "GET", "/v1/orders/\(id)", token: courier).status == 404)
                #expect(try await act(suite, courier, id, "claim").status == 404)
            }
            let pool = try await api.send(suite, "GET", "/v1/orders?available=true", token: courier)
            #expect(!((pool.object["data"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == id })
            let accept = try await act(suite, cast.staff, id, "accept")
            #expect(accept.status == 422 && accept.error["reason"] as? String == "illegal_transition", "\(accept.text)")
            #expect(
                (accept.error["details"] as? [String: Any])?["allowed_actions"] as? [String]
                    == ["mark_collected", "despatch", "cancel"])

            // Despatched, it takes no change.
            let despatched = try await act(suite, cast.staff, id, "despatch")
            #expect(
                despatched.status == 200 && despatched.object["status"] as? String == "despatched"
                    && despatched.object["can_edit"] as? Bool == false, "\(despatched.text)")
            let locked = try await api.send(
                suite, "PATCH", "/v1/orders/\(id)", token: cast.staff, json: ["notes": "late"])
            #expect(locked.status == 422 && locked.error["reason"] as? String == "order_locked", "\(locked.text)")
            let history = try await api.send(suite, "GET", "/v1/orders/\(id)/history", token: cast.staff)
            let entries = history.object["data"] as? [[String: Any]] ?? []
            #expect(
                entries.map { $0["change"] as? String ?? "?" }
                    == ["created", "item_added", "await_parts", "start_repair", "mark_ready", "despatch"])
            #expect(entries.first?["to"] as? String == "booked_in" && entries.last?["to"] as? String == "despatched")
            // The store hears of each status; by then the couriers would have heard of it too.
            _ = try await waitUntil {
                let inbox = try await api.send(suite, "GET", "/v1/notifications?after=0&limit=200", token: cast.staff)
                return (inbox.object["data"] as? [[String: Any]] ?? []).contains {
                    ($0["title"] as? String)?.contains("despatched") == true
                }
            }
            let types = try await inboxTypes(suite, courier, until: [])
            #expect(!types.contains("order.available") && !types.contains("order.created"), "\(types)")

            // The device goes with its customer record; the line keeps its id.
            let deleted = try await api.send(
                suite, "DELETE", "/v1/customers/\(customer["id"] as! String)", token: cast.admin)
            #expect(deleted.status == 204, "\(deleted.text)")
            #expect(
                try await api.send(suite, "GET", "/v1/customer-devices/\(deviceID)", token: cast.staff).status == 404)
            let kept = try await api.send(suite, "GET", "/v1/orders/\(id)", token: cast.staff)
            #expect((kept.object["items"] as? [[String: Any]])?.first?["device_id"] as? String == deviceID)
        }
    }

    /// POSTs `json` as `token` and requires a 201; answers the created object.
    private func post(_ suite: any Suite, _ path: String, _ token: String, _ json: [String: Any]) async throws
        -> [String: Any]
    {
        let reply = try await api.send(
            suite, "POST", path, token: token, json: json, headers: ["Idempotency-Key": UUID().uuidString])
        try #require(reply.status == 201, "\(path): \(reply.text)")
        return reply.object
    }
}
