import AsyncHTTPClient
import Contracts
import Domain
import Foundation
public import JWTKit
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
public import Runtime
import ServiceLifecycle
import Synchronization

/// The notifications service's push settings: Apple's push notification service (APNs), with
/// token-based authentication. Pushes are off unless the key, its id and the team id are set.
///
/// | key | variable | default |
/// |---|---|---|
/// | `apns.key` | `ORDERLY_APNS_KEY` (environment only) | none: the `.p8` key's PEM text |
/// | `apns.keyFile` | `ORDERLY_APNS_KEY_FILE` | none: or the path of the `.p8` file |
/// | `apns.keyId` | `ORDERLY_APNS_KEY_ID` | none: the key's id (10 characters) |
/// | `apns.teamId` | `ORDERLY_APNS_TEAM_ID` | none: the developer team's id |
/// | `apns.productionUrl` | `ORDERLY_APNS_PRODUCTION_URL` | `https://api.push.apple.com` |
/// | `apns.sandboxUrl` | `ORDERLY_APNS_SANDBOX_URL` | `https://api.sandbox.push.apple.com` |
/// | `apns.trustFile` | `ORDERLY_APNS_TRUST_FILE` | none: the system's authorities only |
/// | `apns.retryBaseMilliseconds` | `ORDERLY_APNS_RETRY_BASE_MILLISECONDS` | 1000: the first retry's wait, doubled each time |
public struct APNsSettings: Sendable {
    public var key: ES256PrivateKey
    public var keyID: String
    public var teamID: String
    public var productionURL: String
    public var sandboxURL: String
    /// A PEM file of authorities trusted besides the system's (a test server's).
    public var trustFile: String?
    public var retryBase: Duration
    /// Attempts of one push before it is given up (the inbox still has it).
    public var attempts = 5
    /// How long one attempt may take, connection included.
    public var timeout: Duration = .seconds(10)
    /// How long a provider token is used before a new one is signed (Apple refuses one older
    /// than an hour, and more than one new token every 20 minutes).
    public var tokenLifetime: Duration = .seconds(50 * 60)
    /// How long Apple keeps a push for a device that is off, before giving it up.
    public var expiry: Duration = .seconds(3600)

    /// The settings in `source`; nil when pushes are not configured.
    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> APNsSettings? {
        var reader = source.settings()
        let pem: String?
        if let text = reader.optionalSecret("apns.key") {
            pem = text
        } else if let path = reader.optionalString("apns.keyFile") {
            pem = try? String(contentsOfFile: path, encoding: .utf8)
            if pem == nil { reader.report("apns.keyFile", "cannot read '\(path)'") }
        } else {
            pem = nil
        }
        let keyID = reader.optionalString("apns.keyId")
        let teamID = reader.optionalString("apns.teamId")
        let production = reader.string("apns.productionUrl", default: "https://api.push.apple.com")
        let sandbox = reader.string("apns.sandboxUrl", default: "https://api.sandbox.push.apple.com")
        let trustFile = reader.optionalString("apns.trustFile")
        let retryBase = reader.int("apns.retryBaseMilliseconds", default: 1000, in: 10...600_000)
        for (key, url) in [("apns.productionUrl", production), ("apns.sandboxUrl", sandbox)]
        where !url.hasPrefix("https://") {
            reader.report(key, "expected an https URL, got '\(url)'")
        }
        guard pem != nil || keyID != nil || teamID != nil else {
            try reader.finish()
            return nil
        }
        var key: ES256PrivateKey?
        if let pem {
            key = try? ES256PrivateKey(pem: pem)
            if key == nil { reader.report("apns.key", "is not a P-256 private key in PEM (the .p8 file)") }
        } else {
            reader.report("apns.key", "is required with apns.keyId and apns.teamId (or apns.keyFile)")
        }
        if keyID == nil { reader.report("apns.keyId", "is required with the key") }
        if teamID == nil { reader.report("apns.teamId", "is required with the key") }
        try reader.finish()
        guard let key, let keyID, let teamID else { return nil }
        return APNsSettings(
            key: key, keyID: keyID, teamID: teamID, productionURL: production, sandboxURL: sandbox,
            trustFile: trustFile, retryBase: .milliseconds(retryBase))
    }
}

/// Pushes each stored notification to its user's devices through Apple's HTTP/2 API. It never

extension PushProvider {
    /// Apple's push service, through its HTTP/2 API with token-based authentication.
    static func apns(_ settings: APNsSettings, logger: Logger) -> PushProvider {
        let client = APNsClient(settings: settings)
        return PushProvider(send: { await client.send($0, to: $1) }, shutdown: { await client.shutdown() })
    }
}

/// Sends pushes to Apple: `POST /3/device/<token>` over HTTP/2 (AsyncHTTPClient negotiates it
/// by ALPN), signed with a provider token that pushes share for `tokenLifetime`.
final class APNsClient: Sendable {
    private let settings: APNsSettings
    private let client: HTTPClient
    private let keys = JWTKeyCollection()
    private let signing = Mutex<(task: Task<String, any Error>, signedAt: ContinuousClock.Instant)?>(nil)

    /// The largest payload Apple takes for an alert.
    static let maximumPayloadBytes = 4096

    init(settings: APNsSettings) {
        self.settings = settings
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
        let base = device.environment == "production" ? settings.productionURL : settings.sandboxURL
        var request = HTTPClientRequest(url: "\(base)/3/device/\(device.token)")
        request.method = .POST
        let signing = providerToken()
        do {
            request.headers.add(name: "authorization", value: "bearer \(try await signing.value)")
        } catch {
            forget(signing)
            return .retry("no provider token: \(error)")
        }
        let expiry = Int64(Date().addingTimeInterval(settings.expiry.timeInterval).timeIntervalSince1970)
        for (name, value) in Self.headers(for: push, topic: device.bundleID, expiresAt: expiry) {
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
            case (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
                return .tokenInvalid(since: Date(), reason: "400 \(reason)")
            case (403, "ExpiredProviderToken"):
                forget(signing)
                return .retry("403 \(reason)")
            case (429, _), (500...599, _):
                return .retry("\(status) \(reason)")
            default:
                return .refused("\(status) \(reason)")
            }
        } catch {
            return .retry("no answer: \(String(describing: error).prefix(200))")
        }
    }

    /// The signing of the provider token: an ES256 JWT of the team, signed anew when older than
    /// `tokenLifetime`. Pushes that start together share one signing (Apple refuses a team
    /// that makes new tokens too often).
    private func providerToken() -> Task<String, any Error> {
        let now = ContinuousClock.now
        return signing.withLock { current in
            if let current, now - current.signedAt < settings.tokenLifetime { return current.task }
            let (keys, settings) = (self.keys, self.settings)
            let task = Task {
                await keys.add(ecdsa: settings.key, kid: JWKIdentifier(string: settings.keyID))
                // Apple wants the time in whole seconds.
                let issuedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
                return try await keys.sign(
                    ProviderClaims(iss: IssuerClaim(value: settings.teamID), iat: IssuedAtClaim(value: issuedAt)),
                    kid: JWKIdentifier(string: settings.keyID))
            }
            current = (task, now)
            return task
        }
    }

    /// Signs a new provider token next time, unless a push has already made one since `task`.
    private func forget(_ task: Task<String, any Error>) {
        signing.withLock { current in
            if current?.task == task { current = nil }
        }
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
        // Each character is a byte or more: drop as many as are over (and the cut's mark), the
        // body's first, until it fits.
        let (title, body) = (alert.title, alert.body)
        var (titleKept, bodyKept) = (title.count, body.count)
        func shortened(_ text: String, to count: Int) -> String {
            count < text.count ? String(text.prefix(count)) + "…" : text
        }
        while bytes.count > maximumPayloadBytes, titleKept + bodyKept > 0 {
            let over = bytes.count - maximumPayloadBytes + "…".utf8.count
            if bodyKept > 0 { bodyKept = max(0, bodyKept - over) } else { titleKept = max(0, titleKept - over) }
            (alert.title, alert.body) = (shortened(title, to: titleKept), shortened(body, to: bodyKept))
            bytes = encoded()
        }
        return bytes
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
