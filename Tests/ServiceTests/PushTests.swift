import Domain
import Foundation
import JWTKit
import Runtime
import TestSupport
import Testing

@testable import Notifications

/// Pushes to iPhones: devices registered by their users, and each notification sent to them
/// through a local server that behaves as Apple's push service documents (HTTP/2 over TLS, the
/// provider token verified with the key's public half).
@Suite("Push notifications", .serialized, .timeLimit(.minutes(2)))
struct PushTests {
    let api: API

    init() throws { api = try API() }

    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"

    /// A token of 32 bytes, each `byte`.
    static func token(_ byte: String) -> String { String(repeating: byte, count: 32) }

    private func register(
        _ suite: any Suite, _ token: String, device: String, locale: String? = nil
    ) async throws -> [String: Any] {
        var body: [String: Any] = [
            "platform": "ios", "token": device, "bundle_id": "com.example.store", "environment": "sandbox",
        ]
        body["locale"] = locale
        let reply = try await api.send(suite, "POST", "/v1/devices", token: token, json: body)
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object
    }

    @Test("pushes go over HTTP/2 with a verified token; 410 removes, 429 retries, a stalled one holds up nothing")
    func pushes() async throws {
        let key = ES256PrivateKey()
        let certificates = try TestCertificates.make(names: ["apns"])
        defer { certificates.remove() }
        let server = try await APNsServer.start(
            certificates: certificates, key: key.publicKey, keyID: Self.keyID, teamID: Self.teamID)
        let url = "https://localhost:\(server.port)"
        let settings = [
            "apns.key": key.pemRepresentation, "apns.keyId": Self.keyID, "apns.teamId": Self.teamID,
            "apns.sandboxUrl": url, "apns.productionUrl": url, "apns.trustFile": certificates.certificate("ca"),
            "apns.retryBaseMilliseconds": "50",
        ]
        try await InProcessSuite.with(settings: settings) { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "Falafel Levi"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store, "locale": "he"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
            let owner = try await api.token(suite, "owner@a.com")
            let staff = try await api.token(suite, "staff@a.com")

            // Registering checks each field and names it.
            let bad = try await api.send(
                suite, "POST", "/v1/devices", token: staff,
                json: ["platform": "android", "token": "xyz", "bundle_id": "a b", "environment": "dev", "locale": "?"])
            #expect(bad.status == 400)
            let fields = (bad.object["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:]
            #expect(Set(fields.keys) == ["platform", "token", "bundle_id", "environment", "locale"], "\(bad.text)")

            // The owner's phone is written to in Hebrew (theirs); the staff member's in Arabic (the device's).
            let ownerPhone = try await register(suite, owner, device: Self.token("aa"))
            #expect(ownerPhone["locale"] as? String == "he")
            let busy = try await register(suite, staff, device: Self.token("bb"), locale: "ar")
            let gone = try await register(suite, staff, device: Self.token("cc"))
            let badToken = try await register(suite, owner, device: Self.token("dd"))
            _ = try await register(suite, owner, device: Self.token("ee"))
            server.answer(Self.token("bb"), .busy(2))
            server.answer(Self.token("cc"), .unregistered)
            server.answer(Self.token("dd"), .badDeviceToken)
            server.answer(Self.token("ee"), .stall)
            // Registering the same token again answers the same device.
            #expect(
                try await register(suite, staff, device: Self.token("cc"))["id"] as? String == gone["id"] as? String)

            let created = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 2),
                headers: ["Idempotency-Key": "o1"])
            try #require(created.status == 201, "\(created.text)")
            let orderID = created.object["id"] as! String
            let number = created.object["number"] as! Int

            func requests(_ byte: String) -> [APNsServer.Received] {
                server.received.filter { $0.token == Self.token(byte) }
            }
            // 429 twice, then delivered: three requests; the others one each.
            #expect(await waitUntil(within: .seconds(20)) { requests("bb").count == 3 }, "\(server.received.count)")
            #expect(requests("aa").count == 1 && requests("cc").count == 1 && requests("dd").count == 1)
            // The owner's other phone never hears back, which holds up neither this phone nor the inbox below.
            #expect(requests("ee").count == 1)
            #expect(server.invalidTokens == 0)
            // One provider token serves every request.
            #expect(Set(server.received.map { $0.headers["authorization"] ?? "" }).count == 1)

            let push = try #require(requests("aa").first)
            #expect(push.headers["apns-push-type"] == "alert" && push.headers["apns-topic"] == "com.example.store")
            #expect(push.headers["apns-priority"] == "10" && push.headers["apns-collapse-id"] == "order-\(orderID)")
            let alert = (push.body["aps"] as? [String: Any])?["alert"] as? [String: Any] ?? [:]
            #expect(alert["title-loc-key"] as? String == "order.created.title")
            #expect(alert["loc-key"] as? String == "order.created.delivery")
            #expect((alert["loc-args"] as? [String])?.first == "\(number)")
            #expect(alert["title"] as? String == "הזמנה חדשה #\(number)", "\(alert)")
            let arabic = (requests("bb").last?.body["aps"] as? [String: Any])?["alert"] as? [String: Any]
            #expect(arabic?["title"] as? String == "طلب جديد #\(number)")
            // The push carries the inbox's seq and id: an app that misses one reads after it.
            let inbox = try await api.send(suite, "GET", "/v1/notifications?after=0", token: owner)
            let stored = try #require((inbox.object["data"] as? [[String: Any]])?.first)
            #expect(
                push.body["seq"] as? Int == stored["seq"] as? Int
                    && push.body["id"] as? String == stored["id"] as? String, "\(push.body) \(stored)")
            #expect((push.body["data"] as? [String: String])?["order_id"] == orderID)

            // 410 removed the device; 400 did not, nor did it retry; a 429'd one is kept.
            let devices = DeviceRepository(database: suite.notificationsEvents.notifications.database)
            let goneID = try #require(DeviceID(gone["id"] as! String))
            #expect(try await waitUntil { try await devices.find(goneID) == nil })
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(goneID)", token: staff).status == 404)
            #expect(requests("dd").count == 1)
            // A device is its user's alone: another's is not found, and a token signed in on by
            // someone else becomes theirs.
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(badToken["id"]!)", token: staff).status == 404)
            let taken = try await register(suite, owner, device: Self.token("bb"))
            #expect(taken["id"] as? String == busy["id"] as? String && taken["locale"] as? String == "he")
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(busy["id"]!)", token: staff).status == 404)
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(busy["id"]!)", token: owner).status == 204)
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(badToken["id"]!)", token: owner).status == 204)
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(ownerPhone["id"]!)", token: owner).status == 204)
        }
        await server.stop()
    }

    @Test("pushes are off without a key, and half a configuration names what is missing")
    func settings() throws {
        #expect(try APNsSettings.read(from: .fixed([:])) == nil)
        #expect(throws: ConfigurationError.self) { try APNsSettings.read(from: .fixed(["apns.keyId": "KEY1234567"])) }
        do {
            _ = try APNsSettings.read(from: .fixed(["apns.key": "not a key", "apns.teamId": "T"]))
            Issue.record("a bad key was accepted")
        } catch {
            let text = error.problems.joined(separator: "\n")
            #expect(text.contains("ORDERLY_APNS_KEY ") && text.contains("ORDERLY_APNS_KEY_ID"), "\(text)")
        }
    }
}
