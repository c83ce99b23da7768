import Contracts
import Domain
import Foundation
import JWTKit
import Storage
import Synchronization
import TestSupport
import Testing

@testable import Notifications

/// Pushes to Android phones through Firebase Cloud Messaging's HTTP v1 API, against a local
/// stand-in for Google's two endpoints: the token endpoint, which verifies the service account's
/// RS256 assertion with the account's public key before granting an access token, and
/// `messages:send`, which takes only a token it granted.
@Suite("Firebase Cloud Messaging", .serialized, .timeLimit(.minutes(2)))
struct FCMTests {
    let api: API

    init() throws { api = try API() }

    static let project = "orderly-test"
    static let account = "pusher@orderly-test.iam.gserviceaccount.com"

    /// What Google answers a send that is refused, with FCM's error code when it has one.
    static func refusal(_ status: Int) -> String {
        switch status {
        case 404:
            #"{"error":{"code":404,"status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
        case 429: #"{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}"#
        default: #"{"error":{"code":\#(status),"status":"INTERNAL"}}"#
        }
    }

    @Test(
        "the account's assertion buys one access token pushes share; each message is FCM's v1 JSON; UNREGISTERED removes, 429 retries, a token refused is bought again"
    )
    func pushes() async throws {
        let certificates = try TestCertificates.make(names: ["fcm"])
        defer { certificates.remove() }
        let pem = try certificates.makeRSAKey("account")
        let verifier = JWTKeyCollection()
        await verifier.add(rsa: try Insecure.RSA.PrivateKey(pem: pem).publicKey, digestAlgorithm: .sha256, kid: "k1")
        let statuses = ScriptedStatuses()
        // The access tokens granted, and those the test has since made Google refuse.
        let tokens = Mutex<(granted: [String], refused: Set<String>)>(([], []))
        let google = try await RecordingHTTPSServer.start(certificates: certificates, name: "fcm") { request in
            if request.path == "/token" {
                let form = String(decoding: request.body, as: UTF8.self)
                guard form.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"),
                    let assertion = form.split(separator: "&").first(where: { $0.hasPrefix("assertion=") })?
                        .dropFirst("assertion=".count),
                    let claims = try? await verifier.verify(String(assertion), as: AssertionClaims.self),
                    claims.iss.value == Self.account, claims.scope == FCMClient.scope,
                    claims.aud.value.first?.hasSuffix("/token") == true
                else { return (400, #"{"error":"invalid_grant"}"#) }
                let token = tokens.withLock { tokens in
                    tokens.granted.append("access-\(tokens.granted.count + 1)")
                    return tokens.granted.last!
                }
                return (200, #"{"access_token":"\#(token)","expires_in":3599,"token_type":"Bearer"}"#)
            }
            let bearer = String((request.headers["authorization"] ?? "").dropFirst("Bearer ".count))
            let good = tokens.withLock { $0.granted.contains(bearer) && !$0.refused.contains(bearer) }
            guard request.path == "/v1/projects/\(Self.project)/messages:send", good else {
                return (401, #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#)
            }
            let device = (request.json["message"] as? [String: Any])?["token"] as? String ?? ""
            let status = statuses.next(device) ?? 200
            return (status, status == 200 ? #"{"name":"projects/\#(Self.project)/messages/1"}"# : Self.refusal(status))
        }
        let serviceAccount = try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": Self.project, "private_key_id": "k1", "private_key": pem,
            "client_email": Self.account, "token_uri": "https://localhost:\(google.port)/token",
        ])
        let settings = [
            "push.fcm.serviceAccount": String(decoding: serviceAccount, as: UTF8.self),
            "push.fcm.url": "https://localhost:\(google.port)", "push.fcm.trustFile": certificates.certificate("ca"),
            "push.fcm.retryBaseMilliseconds": "50", "push.bundleIds": "com.example.store",
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
            func register(_ token: String, _ device: String) async throws -> Reply {
                try await api.send(
                    suite, "POST", "/v1/devices", token: token,
                    json: ["platform": "android", "token": device, "bundle_id": "com.example.store"])
            }

            // An Android phone's token is FCM's, not hex, and it has no APNs environment.
            let bad = try await api.send(
                suite, "POST", "/v1/devices", token: owner,
                json: [
                    "platform": "android", "token": "not a token", "bundle_id": "com.example.store",
                    "environment": "sandbox",
                ])
            #expect(bad.status == 400 && TillTests.fields(bad) == ["token", "environment"], "\(bad.text)")
            let phone = try await register(owner, "eOwner:APA91bH-owner_phone")
            try #require(phone.status == 201, "\(phone.text)")
            #expect(phone.object["platform"] as? String == "android" && phone.object["environment"] == nil)
            #expect(phone.object["token"] as? String == "eOwner:APA91bH-owner_phone")
            let gone = try await register(owner, "eGone:APA91bH-uninstalled")
            #expect(try await register(staff, "eStaff:APA91bH-busy").status == 201)
            statuses.set("eGone:APA91bH-uninstalled", [404])
            statuses.set("eStaff:APA91bH-busy", [429, 200])

            let created = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 2),
                headers: ["Idempotency-Key": "f1"])
            try #require(created.status == 201, "\(created.text)")
            let orderID = created.object["id"] as! String
            let number = created.object["number"] as! Int
            func sends(_ device: String) -> [[String: Any]] {
                google.received.compactMap { $0.json["message"] as? [String: Any] }.filter {
                    $0["token"] as? String == device
                }
            }
            #expect(await waitUntil(within: .seconds(20)) { sends("eStaff:APA91bH-busy").count == 2 })
            #expect(await waitUntil(within: .seconds(20)) { sends("eOwner:APA91bH-owner_phone").count == 1 })
            #expect(sends("eGone:APA91bH-uninstalled").count == 1)
            // One assertion, one token, for every push of the batch.
            #expect(google.received.filter { $0.path == "/token" }.count == 1)
            let bearers = Set(google.received.filter { $0.path != "/token" }.map { $0.headers["authorization"] ?? "" })
            #expect(bearers == ["Bearer access-1"])

            let message = try #require(sends("eOwner:APA91bH-owner_phone").first)
            let notification = message["notification"] as? [String: Any] ?? [:]
            #expect((notification["title"] as? String)?.contains("#\(number)") == true, "\(message)")
            let android = message["android"] as? [String: Any] ?? [:]
            #expect(android["priority"] as? String == "high" && android["ttl"] as? String == "3600s")
            #expect(android["collapse_key"] as? String == "order-\(orderID)")
            let data = message["data"] as? [String: String] ?? [:]
            let inbox = try await api.send(suite, "GET", "/v1/notifications?after=0", token: owner)
            let stored = try #require((inbox.object["data"] as? [[String: Any]])?.first)
            #expect(data["seq"] == "\(stored["seq"] as? Int ?? -1)" && data["id"] == stored["id"] as? String)
            #expect(data["order_id"] == orderID && data["type"] == "order.created")

            // UNREGISTERED: the app is gone from the phone, and its device from here.
            let devices = DevicesRepository(database: suite.notifier.notifications.database)
            let goneID = try #require(DeviceID(gone.object["id"] as! String))
            #expect(try await waitUntil { try await devices.find(goneID) == nil })

            // Google stops taking the token: the next push buys another and goes through.
            tokens.withLock { _ = $0.refused.insert("access-1") }
            let again = try await api.send(
                suite, "POST", "/v1/orders", token: staff, json: API.delivery(boxes: 1),
                headers: ["Idempotency-Key": "f2"])
            try #require(again.status == 201, "\(again.text)")
            #expect(await waitUntil(within: .seconds(20)) { sends("eOwner:APA91bH-owner_phone").count == 3 })
            #expect(google.received.filter { $0.path == "/token" }.count == 2)
            #expect(google.received.last { $0.path != "/token" }?.headers["authorization"] == "Bearer access-2")
        }
        await google.stop()
    }

    @Test("a service account that is not one, or whose key is not RSA, is named without its contents")
    func badAccount() throws {
        #expect(try FCMSettings.read(from: .fixed([:])) == nil)
        for (json, reason) in [
            ("{}", "is not a service account's JSON key"),
            (
                #"{"project_id":"p","client_email":"e","private_key":"SECRET-NOT-PEM","token_uri":"https://x/token"}"#,
                "has a private_key that is not an RSA key in PEM"
            ),
        ] {
            do {
                _ = try FCMSettings.read(from: .fixed(["push.fcm.serviceAccount": json]))
                Issue.record("\(json) was taken")
            } catch {
                let text = error.problems.joined(separator: "\n")
                #expect(text.contains(reason) && !text.contains("SECRET-NOT-PEM"), "\(text)")
            }
        }
    }
}
