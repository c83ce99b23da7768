import Contracts
import Crypto
import Domain
import Foundation
import JWTKit
import Storage
import TestSupport
import Testing

@testable import Notifications

/// Pushes to browsers (Web Push): each message encrypted for the subscription (RFC 8291) as the
/// RFC's own example is, and decrypted here with the subscriber's keys; signed for this server
/// (VAPID), the token verified with the key's public half; sent only where pushes may go.
@Suite("Web Push", .serialized, .timeLimit(.minutes(2)))
struct WebPushTests {
    let api: API

    init() throws { api = try API() }

    static func bytes(_ base64URL: String) -> [UInt8] { Base64URL.decoded(base64URL) ?? [] }

    @Test("a message is encrypted byte for byte as RFC 8291's example, and decrypts with the subscriber's keys")
    func rfcExample() throws {
        let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
        let subscriber = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: Self.bytes("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"))
        #expect(
            Base64URL.encoded(Array(subscriber.publicKey.x963Representation))
                == "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
        let sender = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: Self.bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        let auth = Self.bytes("BTBZMqHH6r4Tts7J_aSIgg")
        let body = try WebPushEncryption.encrypt(
            plaintext, subscriberKey: subscriber.publicKey, authSecret: auth,
            salt: Self.bytes("DGv6ra1nlYgDCS1FRnbzlw"),
            sender: sender)
        #expect(
            Base64URL.encoded(body)
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )
        #expect(try Self.decrypt(body, subscriber: subscriber, auth: auth) == plaintext)
        // A fresh key and salt each time: two messages alike are unlike on the wire.
        let again = try WebPushEncryption.encrypt(plaintext, subscriberKey: subscriber.publicKey, authSecret: auth)
        let twice = try WebPushEncryption.encrypt(plaintext, subscriberKey: subscriber.publicKey, authSecret: auth)
        let opened = try Self.decrypt(twice, subscriber: subscriber, auth: auth)
        #expect(again != twice && opened == plaintext)
    }

    @Test(
        "browsers subscribe; each push is encrypted for them and signed for the server; a gone subscription is removed, a busy service tried again"
    )
    func pushes() async throws {
        let key = ES256PrivateKey()
        let certificates = try TestCertificates.make(names: ["push"])
        defer { certificates.remove() }
        let statuses = ScriptedStatuses()
        let service = try await RecordingHTTPSServer.start(certificates: certificates, name: "push") {
            (statuses.next($0.path) ?? 201, "")
        }
        let settings = [
            "push.web.vapidKey": key.pemRepresentation, "push.web.subject": "mailto:ops@orderly.test",
            "push.web.allowedNetworks": "127.0.0.1", "push.web.trustFile": certificates.certificate("ca"),
            "push.web.retryBaseMilliseconds": "50",
        ]
        try await InProcessSuite.with(settings: settings) { suite in
            let admin = try await api.admin(suite)
            let store = try await api.createStore(suite, admin: admin, ["name": "Falafel Levi"])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "owner@a.com", "role": "owner", "store_id": store])
            _ = try await api.createUser(
                suite, admin: admin, ["email": "staff@a.com", "role": "staff", "store_id": store])
            let owner = try await api.token(suite, "owner@a.com")
            let staff = try await api.token(suite, "staff@a.com")
            let subscriber = P256.KeyAgreement.PrivateKey()
            let auth = WebPushEncryption.randomBytes(16)
            let endpoint = "https://localhost:\(service.port)"
            func subscribe(_ token: String, _ path: String, p256dh: [UInt8]? = nil) async throws -> Reply {
                try await api.send(
                    suite, "POST", "/v1/devices", token: token,
                    json: [
                        "platform": "web", "endpoint": endpoint + path,
                        "keys": [
                            "p256dh": Base64URL.encoded(p256dh ?? Array(subscriber.publicKey.x963Representation)),
                            "auth": Base64URL.encoded(auth),
                        ],
                    ])
            }

            // Registering checks each field and names it; an iPhone's fields are not a browser's.
            let bad = try await api.send(
                suite, "POST", "/v1/devices", token: owner,
                json: [
                    "platform": "web", "endpoint": "http://localhost/x", "token": String(repeating: "a", count: 32),
                    "keys": ["p256dh": "AAAA", "auth": "x"],
                ])
            #expect(bad.status == 400 && TillTests.fields(bad) == ["endpoint", "token", "keys.p256dh", "keys.auth"])
            let offCurve = try await subscribe(owner, "/push/x", p256dh: [4] + [UInt8](repeating: 1, count: 64))
            #expect(offCurve.status == 400 && TillTests.fields(offCurve) == ["keys.p256dh"], "\(offCurve.text)")

            let live = try await subscribe(owner, "/push/live")
            try #require(live.status == 201, "\(live.text)")
            #expect(
                live.object["platform"] as? String == "web"
                    && live.object["token"] as? String == endpoint + "/push/live")
            #expect(live.object["bundle_id"] == nil && (live.object["keys"] as? [String: Any])?["auth"] != nil)
            let gone = try await subscribe(owner, "/push/gone")
            try #require(gone.status == 201, "\(gone.text)")
            #expect(try await subscribe(staff, "/push/busy").status == 201)
            statuses.set("/push/gone", [410])
            statuses.set("/push/busy", [429, 201])

            let created = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 2),
                headers: ["Idempotency-Key": "w1"])
            try #require(created.status == 201, "\(created.text)")
            let number = created.object["number"] as! Int
            func requests(_ path: String) -> [RecordingHTTPSServer.Received] {
                service.received.filter { $0.path == path }
            }
            #expect(await waitUntil(within: .seconds(20)) { requests("/push/busy").count == 2 })
            #expect(await waitUntil(within: .seconds(20)) { requests("/push/live").count == 1 })
            #expect(requests("/push/gone").count == 1)

            // What the push service sees: an encrypted body, how long to keep it, and a VAPID
            // token for its own origin that the server's public key verifies.
            let push = try #require(requests("/push/live").first)
            #expect(push.headers["content-encoding"] == "aes128gcm" && push.headers["ttl"] == "3600")
            #expect(push.headers["urgency"] == "high" && push.headers["topic"] != nil)
            let authorization = push.headers["authorization"] ?? ""
            let parts = authorization.dropFirst("vapid ".count).split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let jwt = try #require(parts.first { $0.hasPrefix("t=") }).dropFirst(2)
            let publicKey = try #require(parts.first { $0.hasPrefix("k=") }).dropFirst(2)
            let vapid = try P256.Signing.PublicKey(x963Representation: Self.bytes(String(publicKey)))
            #expect(vapid.pemRepresentation == key.publicKey.pemRepresentation)
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: key.publicKey)
            let claims = try await keys.verify(String(jwt), as: VAPIDClaims.self)
            #expect(claims.aud.value == [endpoint] && claims.sub.value == "mailto:ops@orderly.test")
            #expect(claims.exp.value > Date().addingTimeInterval(3600))
            let plaintext = try Self.decrypt(push.body, subscriber: subscriber, auth: auth)
            let message = try #require(try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any])
            // The push service sees none of it.
            let title = try #require(message["title"] as? String)
            #expect(
                Data(push.body).range(of: Data(title.utf8)) == nil && Data(push.body).range(of: Data("seq".utf8)) == nil
            )
            #expect((message["title"] as? String)?.contains("#\(number)") == true, "\(message)")
            #expect((message["data"] as? [String: String])?["order_id"] == created.object["id"] as? String)
            let inbox = try await api.send(suite, "GET", "/v1/notifications?after=0", token: owner)
            let stored = try #require((inbox.object["data"] as? [[String: Any]])?.first)
            #expect(
                message["seq"] as? Int == stored["seq"] as? Int && message["id"] as? String == stored["id"] as? String)

            // 410: the subscription is gone, and so is its device; the busy one was kept.
            let devices = DevicesRepository(database: suite.notifier.notifications.database)
            let goneID = try #require(DeviceID(gone.object["id"] as! String))
            let liveID = try #require(DeviceID(live.object["id"] as! String))
            #expect(try await waitUntil { try await devices.find(goneID) == nil })
            #expect(try await devices.find(liveID) != nil)
        }
        await service.stop()
    }

    @Test("a subscription's endpoint at a loopback, private or metadata address gets nothing, and is removed")
    func privateEndpoints() async throws {
        let settings = WebPushSettings(
            key: ES256PrivateKey(), subject: "mailto:ops@orderly.test", destinations: WebhookDestinations(allowed: []),
            trustFile: nil, retryBase: .milliseconds(50))
        let client = try WebPushClient(settings: settings)
        let subscriber = P256.KeyAgreement.PrivateKey()
        let keys = WebPushKeys(
            p256dh: Base64URL.encoded(Array(subscriber.publicKey.x963Representation)),
            auth: Base64URL.encoded(WebPushEncryption.randomBytes(16)))
        let push = StoredNotification(
            userID: UserID(), seq: 1, id: UUID(),
            message: NotificationMessage(
                Telling("order.claimed.title", "order.claimed.body", ["1"]), type: "order.claimed", data: [:],
                locale: "en", at: Date()))
        for endpoint in [
            "https://127.0.0.1:1/x", "https://169.254.169.254/latest", "https://[::1]:1/x", "https://10.0.0.1/x",
        ] {
            let device = Device(
                id: DeviceID(), userID: push.userID, platform: "web", token: endpoint, bundleID: nil, environment: nil,
                keys: keys, locale: nil, createdAt: Date(), updatedAt: Date())
            let outcome = await client.send(push, to: device)
            guard case .tokenInvalid(_, let reason) = outcome else {
                Issue.record("\(endpoint): \(outcome)")
                continue
            }
            #expect(reason.contains("not a public address"), "\(endpoint): \(reason)")
        }
    }

    /// RFC 8291's decryption, written from the RFC apart from the sender's code: the one record's
    /// plaintext, its padding and delimiter removed.
    static func decrypt(_ body: [UInt8], subscriber: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        let salt = Array(body[0..<16])
        let idLength = Int(body[20])
        let senderKey = Array(body[21..<(21 + idLength)])
        let ciphertext = Array(body[(21 + idLength)...])
        let ecdh = try subscriber.sharedSecretFromKeyAgreement(
            with: P256.KeyAgreement.PublicKey(x963Representation: senderKey)
        ).withUnsafeBytes { Array($0) }
        func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
        }
        let keyInfo = Array("WebPush: info".utf8) + [0] + Array(subscriber.publicKey.x963Representation) + senderKey
        let ikm = hmac(hmac(auth, ecdh), keyInfo + [1])
        let prk = hmac(salt, ikm)
        let cek = Array(hmac(prk, Array("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16))
        let nonce = Array(hmac(prk, Array("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12))
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext.dropLast(16), tag: ciphertext.suffix(16))
        var record = Array(try AES.GCM.open(box, using: SymmetricKey(data: cek)))
        while record.last == 0 { record.removeLast() }
        guard record.last == 2 else { throw DecryptionError() }
        return Array(record.dropLast())
    }

    struct DecryptionError: Error {}
}
