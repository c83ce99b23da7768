import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Runtime
import ServiceLifecycle

/// Sends pushes to Apple: `POST /3/device/<token>` over HTTP/2 (AsyncHTTPClient negotiates it
/// by ALPN), signed with a provider token that pushes share for `tokenLifetime`.
final class APNsClient: Sendable {
    private let settings: APNsSettings
    private let client: HTTPClient
    private let providerToken: SharedCredential

    /// The largest payload Apple takes for an alert.
    static let maximumPayloadBytes = 4096

    init(settings: APNsSettings) {
        self.settings = settings
        let keys = JWTKeyCollection()
        providerToken = SharedCredential { try await Self.providerToken(keys: keys, settings: settings) }
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .automatic
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(settings.timeout.components.seconds))
        if let trustFile = settings.trustFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(trustFile)]
            configuration.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async { try? await client.shutdown() }

    func send(_ push: StoredNotification, to device: Device) async -> PushOutcome {
        // Every iPhone's device names its app; one that does not is no device of Apple's.
        guard let topic = device.bundleID else { return .tokenInvalid(since: Date(), reason: "no bundle id") }
        let base = device.environment == "production" ? settings.productionURL : settings.sandboxURL
        var request = HTTPClientRequest(url: "\(base)/3/device/\(device.token)")
        request.method = .POST
        let lease: SharedCredential.Lease
        do {
            lease = try await providerToken.lease()
        } catch {
            return .retry("no provider token: \(error)")
        }
        request.headers.add(name: "authorization", value: "bearer \(lease.value)")
        let expiry = Int64(Date().addingTimeInterval(settings.expiry.timeInterval).timeIntervalSince1970)
        for (name, value) in Self.headers(for: push, topic: topic, expiresAt: expiry) {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(ByteBuffer(bytes: Self.payload(for: push, locale: device.locale)))
        do {
            let response = try await client.execute(request, timeout: .seconds(settings.timeout.components.seconds))
            let body = try await response.body.collect(upTo: 16 << 10)
            let answer = try? JSONDecoder().decode(APNsAnswer.self, from: Data(buffer: body))
            let (status, reason) = (Int(response.status.code), answer?.reason ?? "")
            switch (status, reason) {
            case (200, _):
                return .delivered
            case (410, _):
                let since = answer?.timestamp.map { Date(millisecondsSince1970: $0) } ?? Date()
                return .tokenInvalid(since: since, reason: "410 \(reason)")
            case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (400, "BadTopic"),
                (400, "TopicDisallowed"):
                // The device's token or its app's bundle id: no push to it will ever be taken.
                return .tokenInvalid(since: Date(), reason: "400 \(reason)")
            case (403, "ExpiredProviderToken"):
                providerToken.forget(lease)
                return .retry("403 \(reason)")
            case (429, _), (500...599, _):
                return .retry("\(status) \(reason)")
            default:
                // The sender's fault (its key, team or payload), not the device's.
                return .refused("\(status) \(reason)")
            }
        } catch {
            return .retry("no answer: \(String(describing: error).prefix(200))")
        }
    }

    /// Signs a provider token: an ES256 JWT of the team, used for `tokenLifetime`. Pushes that
    /// start together share one signing (Apple refuses a team that makes new tokens too often).
    private static func providerToken(keys: JWTKeyCollection, settings: APNsSettings) async throws
        -> SharedCredential.Made
    {
        await keys.add(ecdsa: settings.key, kid: JWKIdentifier(string: settings.keyID))
        // Apple wants the time in whole seconds.
        let issuedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let token = try await keys.sign(
            ProviderClaims(iss: IssuerClaim(value: settings.teamID), iat: IssuedAtClaim(value: issuedAt)),
            kid: JWKIdentifier(string: settings.keyID))
        return SharedCredential.Made(value: token, expires: .now + settings.tokenLifetime)
    }

    /// The request's APNs headers: an alert, at once for what someone acts on (orders) and
    /// when the phone is awake for the rest, kept by Apple until `expiresAt` for a phone that
    /// is off; a payment's pushes replace each other on the lock screen, as do an order's.
    static func headers(for push: StoredNotification, topic: String, expiresAt: Int64) -> [(String, String)] {
        var headers = [
            ("apns-push-type", "alert"), ("apns-topic", topic), ("apns-id", push.id.lowercasedText),
            ("apns-priority", push.message.type.hasPrefix("order.") ? "10" : "5"), ("apns-expiration", "\(expiresAt)"),
        ]
        if let payment = push.message.data["payment_id"] {
            headers.append(("apns-collapse-id", "payment-\(payment)"))
        } else if let order = push.message.data["order_id"] {
            headers.append(("apns-collapse-id", "order-\(order)"))
        }
        return headers
    }

    /// The JSON sent: `aps.alert` with the texts in the device's language (the user's, as
    /// stored, when the device names none) and their keys and arguments (an app that has the
    /// keys shows its own texts), and beside `aps` the notification's `seq`, id, type and the
    /// ids to open. Within Apple's 4 KB: when longer, the keys and arguments go, then the
    /// texts are shortened.
    static func payload(for push: StoredNotification, locale: String?) -> [UInt8] {
        let message = push.message
        let args = message.args ?? []
        func text(_ key: String?, _ stored: String) -> String {
            guard let locale, let key else { return stored }
            return NotificationTexts.render(key, args, locale: locale)
        }
        var alert = APNsPayload.Alert(
            title: text(message.titleKey, message.title), body: text(message.bodyKey, message.body),
            titleLocKey: message.titleKey, titleLocArgs: message.titleKey == nil ? nil : args,
            locKey: message.bodyKey, locArgs: message.bodyKey == nil ? nil : args)
        func encoded() -> [UInt8] {
            let payload = APNsPayload(
                aps: .init(alert: alert, sound: "default", threadID: message.data["order_id"].map { "order-\($0)" }),
                seq: push.seq, id: push.id, type: message.type, data: message.data)
            return Array((try? JSONEncoder().encode(payload)) ?? Data())
        }
        var bytes = encoded()
        if bytes.count > maximumPayloadBytes {
            (alert.titleLocKey, alert.titleLocArgs, alert.locKey, alert.locArgs) = (nil, nil, nil, nil)
            bytes = encoded()
        }
        return PushTextFit.fitted(bytes, title: alert.title, body: alert.body, within: maximumPayloadBytes) {
            (alert.title, alert.body) = ($0, $1)
            return encoded()
        }
    }
}

/// The claims of a provider token: the team and when it was signed.
struct ProviderClaims: JWTPayload {
    var iss: IssuerClaim
    var iat: IssuedAtClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Apple's answer to a refused push.
struct APNsAnswer: Decodable {
    var reason: String?
    /// For 410: when the token was last valid, in milliseconds since 1970.
    var timestamp: Int64?
}

/// The body of a push.
struct APNsPayload: Encodable {
    struct Alert: Encodable {
        var title: String
        var body: String
        var titleLocKey: String?
        var titleLocArgs: [String]?
        var locKey: String?
        var locArgs: [String]?

        enum CodingKeys: String, CodingKey {
            case title, body
            case titleLocKey = "title-loc-key"
            case titleLocArgs = "title-loc-args"
            case locKey = "loc-key"
            case locArgs = "loc-args"
        }
    }

    struct APS: Encodable {
        var alert: Alert
        var sound: String
        var threadID: String?

        enum CodingKeys: String, CodingKey {
            case alert, sound
            case threadID = "thread-id"
        }
    }

    var aps: APS
    var seq: Int64
    /// As the inbox writes it.
    var id: UUID
    var type: String
    var data: [String: String]
}
