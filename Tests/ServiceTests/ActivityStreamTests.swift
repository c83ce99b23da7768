import Foundation
import TestSupport
import Testing

/// A store's activity feed left open on a dashboard: the suite's processes, a stream held open.
@Suite("A store's activity stream")
struct ActivityStreamTests {
    let api: API

    init() throws { api = try API() }

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
