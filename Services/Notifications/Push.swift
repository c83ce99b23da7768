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

    /// How long after `attempts` failed attempts the next one comes: the base doubled per
    /// attempt, ±50 %.
    func backoff(after attempts: Int) -> Duration {
        retryBase * (1 << min(max(attempts - 1, 0), 10)) * Double.random(in: 0.5...1.5)
    }
}

/// Pushes each stored notification to its user's devices through Apple's HTTP/2 API. It never
/// holds up what stores notifications: they are handed over into a bounded queue and sent from
/// here, at most `concurrency` at once; a device that Apple says is gone (410) is removed;
/// an answer of 429 or 5xx, or none, is tried again after a backoff, up to `attempts` times.
/// Best effort by design: the inbox keeps every notification and each push carries its `seq`,
/// so an app that missed one reads the inbox after the last `seq` it saw.
final class PushSender: Service, Sendable {
    private let settings: APNsSettings
    private let devices: DeviceRepository
    private let logger: Logger
    private let keys = JWTKeyCollection()
    private let signing = Mutex<(task: Task<String, any Error>, signedAt: ContinuousClock.Instant)?>(nil)
    private let queue = Mutex<(pending: [StoredNotification], waiter: CheckedContinuation<Void, Never>?)>(([], nil))

    /// At most this many pushes wait; beyond it, the oldest are dropped (the inbox has them).
    static let capacity = 10_000
    /// At most this many requests are in flight.
    static let concurrency = 64

    init(settings: APNsSettings, devices: DeviceRepository, logger: Logger) {
        self.settings = settings
        self.devices = devices
        self.logger = logger
    }

    /// Hands `pushes` over to be sent; returns at once.
    func push(_ pushes: [StoredNotification]) {
        guard !pushes.isEmpty else { return }
        let (waiter, dropped) = queue.withLock { queue in
            queue.pending += pushes
            let dropped = max(0, queue.pending.count - Self.capacity)
            queue.pending.removeFirst(dropped)
            defer { queue.waiter = nil }
            return (queue.waiter, dropped)
        }
        if dropped > 0 { logger.warning("pushes dropped: too many waiting", metadata: ["pushes": "\(dropped)"]) }
        waiter?.resume()
    }

    func run() async throws {
        await keys.add(ecdsa: settings.key, kid: JWKIdentifier(string: settings.keyID))
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .automatic
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(settings.timeout.components.seconds))
        if let trustFile = settings.trustFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(trustFile)]
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                var inFlight = 0
                while !Task.isCancelled {
                    let batch = await self.next()
                    guard !batch.isEmpty else { continue }
                    let targets: [(StoredNotification, Device)]
                    do {
                        let found = try await self.devices.devices(of: Set(batch.map(\.userID)))
                        let byUser = Dictionary(grouping: found, by: \.userID)
                        targets = batch.flatMap { push in byUser[push.userID, default: []].map { (push, $0) } }
                    } catch {
                        self.logger.warning(
                            "devices not read; pushes dropped",
                            metadata: ["error": "\(error)", "pushes": "\(batch.count)"])
                        continue
                    }
                    for (push, device) in targets {
                        if inFlight == Self.concurrency {
                            await group.next()
                            inFlight -= 1
                        }
                        group.addTask { await self.deliver(push, to: device, client: client) }
                        inFlight += 1
                    }
                }
                group.cancelAll()
            }
        }
        try? await client.shutdown()
    }

    /// The pushes waiting, once there are some (or none when cancelled).
    private func next() async -> [StoredNotification] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = queue.withLock { queue -> Bool in
                    if !queue.pending.isEmpty || Task.isCancelled { return true }
                    queue.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
            return queue.withLock { queue in
                defer { queue.pending = [] }
                return queue.pending
            }
        } onCancel: {
            let waiter = queue.withLock { queue in
                defer { queue.waiter = nil }
                return queue.waiter
            }
            waiter?.resume()
        }
    }

    /// Sends `push` to `device`, again after a backoff while Apple is busy or unreachable.
    private func deliver(_ push: StoredNotification, to device: Device, client: HTTPClient) async {
        for attempt in 1...settings.attempts {
            let outcome = await send(push, to: device, client: client)
            switch outcome {
            case .delivered:
                return
            case .gone(let validUntil):
                do {
                    try await devices.removeUnregistered(token: device.token, validUntil: validUntil)
                } catch {
                    logger.warning("unregistered device not removed", metadata: ["error": "\(error)"])
                }
                return
            case .refused(let status, let reason):
                logger.warning(
                    "push refused",
                    metadata: ["status": "\(status)", "reason": "\(reason)", "device_id": "\(device.id)"])
                return
            case .retry(let why):
                if attempt == settings.attempts {
                    logger.warning(
                        "push given up",
                        metadata: ["last": "\(why)", "attempts": "\(attempt)", "device_id": "\(device.id)"])
                    return
                }
            }
            do {
                try await Task.sleep(for: settings.backoff(after: attempt))
            } catch {
                return
            }
        }
    }

    /// What one attempt came to.
    enum Outcome: Sendable {
        case delivered
        /// The token is no longer valid (410), since this time.
        case gone(validUntil: Date)
        /// Refused for good (400, 403, 404, 413): trying again would not help.
        case refused(Int, String)
        /// 429, 5xx, an expired provider token, or no answer.
        case retry(String)
    }

    private func send(_ push: StoredNotification, to device: Device, client: HTTPClient) async -> Outcome {
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
        let headers = Self.headers(for: push, topic: device.bundleID)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: Self.payload(for: push, locale: device.locale)))
        do {
            let response = try await client.execute(
                request, timeout: .seconds(settings.timeout.components.seconds))
            let body = try await response.body.collect(upTo: 16 << 10)
            let status = Int(response.status.code)
            let answer = try? JSONDecoder().decode(APNsAnswer.self, from: Data(buffer: body))
            let reason = answer?.reason ?? ""
            switch status {
            case 200: return .delivered
            case 410:
                let validUntil = answer?.timestamp.map { Date(millisecondsSince1970: $0) } ?? Date()
                return .gone(validUntil: validUntil)
            case 403 where reason == "ExpiredProviderToken":
                forget(signing)
                return .retry("provider token expired")
            case 429, 500...599: return .retry("answered \(status) \(reason)")
            default: return .refused(status, reason)
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
                try await keys.sign(
                    ProviderClaims(iss: IssuerClaim(value: settings.teamID), iat: IssuedAtClaim(value: Date())),
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
    /// when the phone is awake for the rest; an order's pushes replace each other on the lock
    /// screen, as do a payment's.
    static func headers(for push: StoredNotification, topic: String) -> [(String, String)] {
        var headers = [
            ("apns-push-type", "alert"), ("apns-topic", topic), ("apns-id", push.id.uuidString),
            ("apns-priority", push.message.type.hasPrefix("order.") ? "10" : "5"),
        ]
        if let order = push.message.data["order_id"] {
            headers.append(("apns-collapse-id", "order-\(order)"))
        } else if let payment = push.message.data["payment_id"] {
            headers.append(("apns-collapse-id", "payment-\(payment)"))
        }
        return headers
    }

    /// The JSON sent: `aps.alert` with the texts in the device's language and their keys and
    /// arguments (an app that has the keys shows its own texts), and beside `aps` the
    /// notification's `seq`, id, type and the ids to open.
    static func payload(for push: StoredNotification, locale: String) -> [UInt8] {
        let message = push.message
        let args = message.args ?? []
        let alert = APNsPayload.Alert(
            title: message.titleKey.map { NotificationTexts.render($0, args, locale: locale) } ?? message.title,
            body: message.bodyKey.map { NotificationTexts.render($0, args, locale: locale) } ?? message.body,
            titleLocKey: message.titleKey, titleLocArgs: message.titleKey == nil ? nil : args,
            locKey: message.bodyKey, locArgs: message.bodyKey == nil ? nil : args)
        let payload = APNsPayload(
            aps: .init(alert: alert, sound: "default", threadID: message.data["order_id"].map { "order-\($0)" }),
            seq: push.seq, id: push.id, type: message.type, data: message.data)
        return Array((try? JSONEncoder().encode(payload)) ?? Data())
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
