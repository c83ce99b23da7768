import Contracts
import Domain
import Foundation
import JWTKit
import Runtime
import Storage
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
        _ suite: any Suite, _ token: String, device: String, locale: String? = nil, environment: String = "sandbox"
    ) async throws -> [String: Any] {
        var body: [String: Any] = [
            "platform": "ios", "token": device, "bundle_id": "com.example.store", "environment": environment,
        ]
        body["locale"] = locale
        let reply = try await api.send(suite, "POST", "/v1/devices", token: token, json: body)
        try #require(reply.status == 201, "\(reply.text)")
        return reply.object
    }

    @Test("pushes go over HTTP/2 with a verified token; bad tokens remove, 429/503 retry, a stall holds up nothing")
    func pushes() async throws {
        let key = ES256PrivateKey()
        let certificates = try TestCertificates.make(names: ["apns"])
        defer { certificates.remove() }
        let sandbox = try await APNsServer.start(
            certificates: certificates, key: key.publicKey, keyID: Self.keyID, teamID: Self.teamID)
        let production = try await APNsServer.start(
            certificates: certificates, key: key.publicKey, keyID: Self.keyID, teamID: Self.teamID)
        let settings = [
            "apns.key": key.pemRepresentation, "apns.keyId": Self.keyID, "apns.teamId": Self.teamID,
            "apns.sandboxUrl": "https://localhost:\(sandbox.port)",
            "apns.productionUrl": "https://localhost:\(production.port)",
            "apns.trustFile": certificates.certificate("ca"), "apns.retryBaseMilliseconds": "50",
        ]
        try await InProcessSuite.with(settings: settings) { suite in
            let admin = try await api.admin(suite)
            // Its deliveries reach the couriers as they are created, so the courier is pushed the first.
            let store = try await api.createStore(
                suite, admin: admin, ["name": "Falafel Levi", "dispatch": "on_create"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store, "locale": "he"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
            let owner = try await api.token(suite, "owner@a.com")
            let staff = try await api.token(suite, "staff@a.com")
            // Two couriers with a phone each, one on duty: only they are pushed a new delivery.
            for (email, duty) in [("on@x.com", true), ("off@x.com", false)] {
                _ = try await api.createUser(suite, admin: admin, ["email": email, "role": "courier", "locale": "he"])
                let courier = try await api.token(suite, email)
                let reply = try await api.send(
                    suite, "PUT", "/v1/couriers/me/availability", token: courier, json: ["on_duty": duty])
                try #require(reply.status == 200, "\(reply.text)")
                _ = try await register(suite, courier, device: Self.token(duty ? "c1" : "c2"))
            }
            let onDuty = try await api.token(suite, "on@x.com")

            // Registering checks each field and names it.
            let bad = try await api.send(
                suite, "POST", "/v1/devices", token: staff,
                json: ["platform": "windows", "token": "xyz", "bundle_id": "a b", "environment": "dev", "locale": "?"])
            #expect(bad.status == 400)
            let fields = (bad.object["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:]
            #expect(Set(fields.keys) == ["platform", "token", "bundle_id", "environment", "locale"], "\(bad.text)")
            // Full-width digits are hex to Unicode, not to Apple.
            let wide = try await api.send(
                suite, "POST", "/v1/devices", token: staff,
                json: [
                    "platform": "ios", "token": String(repeating: "１", count: 32), "bundle_id": "com.example.store",
                    "environment": "sandbox",
                ])
            #expect(wide.status == 400)

            // The owner's phone follows the owner's language (Hebrew); the staff member's is Arabic.
            let ownerPhone = try await register(suite, owner, device: Self.token("aa"))
            #expect(ownerPhone["locale"] is NSNull)
            let busy = try await register(suite, staff, device: Self.token("bb"), locale: "ar")
            let gone = try await register(suite, staff, device: Self.token("cc"))
            let badToken = try await register(suite, owner, device: Self.token("dd"))
            let badTopic = try await register(suite, owner, device: Self.token("12"))
            let revokedKey = try await register(suite, owner, device: Self.token("34"))
            _ = try await register(suite, owner, device: Self.token("ee"))
            _ = try await register(suite, staff, device: Self.token("ff"), environment: "production")
            sandbox.answer(Self.token("bb"), .busy(2))
            sandbox.answer(Self.token("cc"), .unregistered)
            sandbox.answer(Self.token("dd"), .badDeviceToken)
            sandbox.answer(Self.token("12"), .refused(400, "BadTopic"))
            sandbox.answer(Self.token("34"), .refused(403, "InvalidProviderToken"))
            sandbox.answer(Self.token("ee"), .stall)
            production.answer(Self.token("ff"), .unavailable(1))
            // Registering the same token again answers the same device.
            #expect(
                try await register(suite, staff, device: Self.token("cc"))["id"] as? String == gone["id"] as? String)

            let created = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 2),
                headers: ["Idempotency-Key": "o1"])
            try #require(created.status == 201, "\(created.text)")
            let orderID = created.object["id"] as! String
            let number = created.object["number"] as! Int

            func requests(_ byte: String, on server: APNsServer = sandbox) -> [APNsServer.Received] {
                server.received.filter { $0.token == Self.token(byte) }
            }
            // 429 twice, then delivered: three requests; 503 once on production, then delivered: two.
            #expect(await waitUntil(within: .seconds(20)) { requests("bb").count == 3 }, "\(sandbox.received.count)")
            #expect(await waitUntil(within: .seconds(20)) { requests("ff", on: production).count == 2 })
            #expect(requests("aa").count == 1 && requests("cc").count == 1 && requests("dd").count == 1)
            #expect(requests("ff").isEmpty && requests("aa", on: production).isEmpty)
            // The owner's other phone never hears back, which holds up neither this phone nor the inbox below.
            #expect(requests("ee").count == 1)
            #expect(sandbox.invalidTokens == 0 && production.invalidTokens == 0)
            // One provider token serves every request.
            let tokens = (sandbox.received + production.received).map { $0.headers["authorization"] ?? "" }
            #expect(Set(tokens).count == 1)

            let push = try #require(requests("aa").first)
            #expect(push.headers["apns-push-type"] == "alert" && push.headers["apns-topic"] == "com.example.store")
            #expect(push.headers["apns-priority"] == "10" && push.headers["apns-collapse-id"] == "order-\(orderID)")
            #expect(push.headers["apns-id"] == push.headers["apns-id"]?.lowercased())
            let expiration = Double(push.headers["apns-expiration"] ?? "") ?? 0
            #expect(expiration > Date().timeIntervalSince1970 + 3000)
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
                    && push.body["id"] as? String == stored["id"] as? String)
            #expect((push.body["data"] as? [String: String])?["order_id"] == orderID)
            // The courier on duty is pushed what all of them were told, in their language, with the
            // seq and id their inbox reads; the courier off duty is pushed nothing.
            #expect(await waitUntil(within: .seconds(20)) { requests("c1").count == 1 })
            let told = try #require(requests("c1").first)
            let courierAlert = (told.body["aps"] as? [String: Any])?["alert"] as? [String: Any] ?? [:]
            #expect(courierAlert["title"] as? String == "משלוח חדש #\(number)", "\(courierAlert)")
            let courierInbox = try await api.send(suite, "GET", "/v1/notifications?after=0", token: onDuty)
            let broadcast = try #require((courierInbox.object["data"] as? [[String: Any]])?.first)
            #expect(
                told.body["seq"] as? Int == broadcast["seq"] as? Int
                    && told.body["id"] as? String == broadcast["id"] as? String)
            #expect(requests("c2").isEmpty)

            // 410 removed its device, and so did 400 BadDeviceToken and every other refusal of the
            // device for good (N6: 400 BadTopic kept it, to be pushed to in vain), without trying
            // again; a 429'd one is kept, and so is one refused for the sender's fault (a revoked
            // key would otherwise cost every user every device).
            let devices = DevicesRepository(database: suite.notifier.notifications.database)
            let goneID = try #require(DeviceID(gone["id"] as! String))
            let badID = try #require(DeviceID(badToken["id"] as! String))
            let badTopicID = try #require(DeviceID(badTopic["id"] as! String))
            #expect(
                try await waitUntil {
                    let (gone, bad) = (try await devices.find(goneID), try await devices.find(badID))
                    let topic = try await devices.find(badTopicID)
                    return gone == nil && bad == nil && topic == nil
                })
            #expect(requests("12").count == 1)
            // The next order's push reaches the device the sender's fault kept.
            let again = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 1),
                headers: ["Idempotency-Key": "o2"])
            try #require(again.status == 201, "\(again.text)")
            #expect(await waitUntil(within: .seconds(20)) { requests("34").count == 2 })
            #expect(try await devices.find(try #require(DeviceID(revokedKey["id"] as! String))) != nil)
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(goneID)", token: staff).status == 404)
            #expect(requests("dd").count == 1)
            // An admin pushes one of the owner's notifications again: the same seq and id, to the
            // devices the owner has now.
            let ownerID = try await api.send(suite, "GET", "/v1/me", token: owner).object["id"] as! String
            let before = requests("aa").count
            let resent = try await api.send(
                suite, "POST", "/v1/users/\(ownerID)/notifications/\(stored["seq"] as! Int)/resend", token: admin)
            #expect(resent.status == 202 && resent.object["devices"] as? Int == 3, "\(resent.text)")
            #expect(await waitUntil(within: .seconds(20)) { requests("aa").count == before + 1 })
            #expect(requests("aa").last?.body["id"] as? String == stored["id"] as? String)
            let missing = try await api.send(
                suite, "POST", "/v1/users/\(ownerID)/notifications/999999/resend", token: admin)
            #expect(missing.status == 404)
            // A device is its user's alone: another's is not found, and a token signed in on by
            // someone else becomes theirs.
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(ownerPhone["id"]!)", token: staff).status == 404)
            let taken = try await register(suite, owner, device: Self.token("bb"))
            #expect(taken["id"] as? String == busy["id"] as? String && taken["locale"] is NSNull)
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(busy["id"]!)", token: staff).status == 404)
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(busy["id"]!)", token: owner).status == 204)
            #expect(try await api.send(suite, "DELETE", "/v1/devices/\(ownerPhone["id"]!)", token: owner).status == 204)
        }
        await sandbox.stop()
        await production.stop()
    }

    @Test("a device without a language of its own gets the user's texts as stored; a long one fits in 4 KB")
    func payloads() throws {
        let order = UUID().lowercasedText
        func stored(_ telling: Telling, locale: String) -> StoredNotification {
            StoredNotification(
                userID: UserID(), seq: 7, id: UUID(),
                message: NotificationMessage(
                    telling, type: "order.created", data: ["order_id": order], locale: locale, at: Date()))
        }
        func alert(_ bytes: [UInt8]) throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            return (object?["aps"] as? [String: Any])?["alert"] as? [String: Any] ?? [:]
        }
        let telling = Telling("order.created.title", "order.created.delivery", ["12", "Dana"])
        let hebrew = stored(telling, locale: "he")
        #expect(try alert(APNsClient.payload(for: hebrew, locale: nil))["title"] as? String == hebrew.message.title)
        #expect(try alert(APNsClient.payload(for: hebrew, locale: "ar"))["title"] as? String == "طلب جديد #12")

        // A refund's reason of 3,000 emoji: the keys and arguments go, the body is cut, all within 4 KB.
        let reason = String(repeating: "🍕", count: 3000)
        let long = stored(Telling("payment.refunded.title", "payment.refunded.body", ["₪12.00", reason]), locale: "en")
        let bytes = APNsClient.payload(for: long, locale: nil)
        #expect(bytes.count <= APNsClient.maximumPayloadBytes)
        let cut = try alert(bytes)
        #expect(cut["loc-args"] == nil && cut["loc-key"] == nil)
        #expect((cut["body"] as? String)?.hasSuffix("…") == true && cut["title"] as? String == long.message.title)
    }

    @Test("a push's texts are cut from what they were, the body first, each with one mark, until the payload fits")
    func textsCutOnce() throws {
        func encode(_ title: String, _ body: String) -> [UInt8] {
            Array((try? JSONSerialization.data(withJSONObject: ["title": title, "body": body])) ?? Data())
        }
        let (title, body) = (String(repeating: "b", count: 2000), String(repeating: "🍕", count: 1000))
        let bytes = PushTextFit.fitted(encode(title, body), title: title, body: body, within: 1000, encode: encode)
        let cut = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String])
        #expect(bytes.count <= 1000 && bytes.count > 900, "\(bytes.count)")
        #expect(cut["body"] == "…")
        let shortTitle = try #require(cut["title"])
        #expect(shortTitle.hasPrefix("bbb") && shortTitle.hasSuffix("b…") && !shortTitle.contains("……"))
        // What fits is left alone.
        #expect(
            PushTextFit.fitted(encode("a", "b"), title: "a", body: "b", within: 1000, encode: encode)
                == encode("a", "b"))
    }

    @Test(
        "a token registered by several users at once is stored once, as one device",
        arguments: TestDatabase.kinds)
    func concurrentRegistrations(kind: Database.Kind) async throws {
        try await TestDatabase.with(kind) { test in
            try await test.database.migrate(scope: "notifications", NotificationsService.migrations)
            let devices = DevicesRepository(database: test.database)
            let users = (0..<20).map { _ in UserID() }
            let stored = try await withThrowingTaskGroup(of: Device.self) { group in
                for user in users {
                    group.addTask {
                        let now = Date.currentMillisecond
                        return try await devices.register(
                            Device(
                                id: DeviceID(), userID: user, platform: "ios", token: Self.token("ab"),
                                bundleID: "com.example.store", environment: "sandbox", locale: nil, createdAt: now,
                                updatedAt: now))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(stored.map(\.id)).count == 1)
            let rows = try await devices.devices(of: Set(users))
            #expect(rows.count == 1 && rows.first?.id == stored.first?.id)
        }
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
        // The apps' bundle ids: none unset or `none` (what the deployments pass until set), each checked.
        #expect(try APNsSettings.bundleIDs(from: .fixed([:])).isEmpty)
        #expect(try APNsSettings.bundleIDs(from: .fixed(["push.bundleIds": "none"])).isEmpty)
        let two = try APNsSettings.bundleIDs(from: .fixed(["push.bundleIds": "com.example.store, com.example.courier"]))
        #expect(two == ["com.example.store", "com.example.courier"])
        #expect(throws: ConfigurationError.self) {
            try APNsSettings.bundleIDs(from: .fixed(["push.bundleIds": "com.example.store,a b"]))
        }
    }
}
