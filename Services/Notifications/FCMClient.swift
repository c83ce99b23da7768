import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import JWTKit
import NIOCore
import NIOSSL

/// Sends pushes to Android apps through Firebase Cloud Messaging's HTTP v1 API:
/// `POST /v1/projects/<project>/messages:send` with an access token that the service account's
/// signed assertion (an RS256 JWT) was exchanged for at its `token_uri`. Pushes share one token
/// until shortly before it expires, and ask for a new one when Google says it is no good.
final class FCMClient: Sendable {
    private let settings: FCMSettings
    private let client: HTTPClient
    /// The access token pushes share: asked for anew five minutes before it expires, or when
    /// Google refused it, by one request however many pushes start together.
    private let accessToken: SharedCredential

    /// The OAuth scope that sending needs.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The largest message FCM takes.
    static let maximumPayloadBytes = 4096

    init(settings: FCMSettings) {
        self.settings = settings
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(settings.timeout.components.seconds))
        if let trustFile = settings.trustFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(trustFile)]
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.client = client
        let keys = JWTKeyCollection()
        accessToken = SharedCredential { try await Self.exchange(keys: keys, settings: settings, client: client) }
    }

    func shutdown() async { try? await client.shutdown() }

    func send(_ push: StoredNotification, to device: Device) async -> PushOutcome {
        let lease: SharedCredential.Lease
        do {
            lease = try await accessToken.lease()
        } catch {
            return .retry("no access token: \(String(describing: error).prefix(200))")
        }
        var request = HTTPClientRequest(url: "\(settings.url)/v1/projects/\(settings.account.projectID)/messages:send")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(lease.value)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Self.message(for: push, to: device, expiry: settings.expiry)))
        do {
            let response = try await client.execute(request, timeout: .seconds(settings.timeout.components.seconds))
            let body = try await response.body.collect(upTo: 64 << 10)
            let status = Int(response.status.code)
            let code = (try? JSONDecoder().decode(FCMAnswer.self, from: Data(buffer: body)))?.code ?? ""
            switch (status, code) {
            case (200, _):
                return .delivered
            case (404, _), (_, "UNREGISTERED"), (403, "SENDER_ID_MISMATCH"):
                // The app was removed, or the token is of another project: no push to it will be taken.
                return .tokenInvalid(since: Date(), reason: "\(status) \(code)")
            case (401, _):
                accessToken.forget(lease)
                return .retry("401 \(code)")
            case (429, _), (500...599, _):
                return .retry("\(status) \(code)")
            default:
                // The sender's fault (its account, its project, the message), not the device's.
                return .refused("\(status) \(code)")
            }
        } catch {
            return .retry("no answer: \(String(describing: error).prefix(200))")
        }
    }

    /// The service account's assertion (RFC 7523), signed with its key, exchanged for an access
    /// token at its `token_uri`.
    private static func exchange(keys: JWTKeyCollection, settings: FCMSettings, client: HTTPClient) async throws
        -> SharedCredential.Made
    {
        let kid = settings.account.privateKeyID.map { JWKIdentifier(string: $0) }
        await keys.add(rsa: settings.key, digestAlgorithm: .sha256, kid: kid)
        let issuedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let assertion = try await keys.sign(
            AssertionClaims(
                iss: IssuerClaim(value: settings.account.clientEmail), scope: scope,
                aud: AudienceClaim(value: settings.account.tokenURI), iat: IssuedAtClaim(value: issuedAt),
                exp: ExpirationClaim(value: issuedAt.addingTimeInterval(3600))),
            kid: kid)
        var request = HTTPClientRequest(url: settings.account.tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(
                string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await client.execute(request, timeout: .seconds(settings.timeout.components.seconds))
        let body = try await response.body.collect(upTo: 64 << 10)
        guard response.status == .ok,
            let granted = try? JSONDecoder().decode(GrantedToken.self, from: Data(buffer: body))
        else { throw FCMError.tokenRefused(Int(response.status.code)) }
        return SharedCredential.Made(
            value: granted.accessToken, expires: .now + .seconds(max(granted.expiresIn, 360)) - .seconds(300))
    }

    /// The JSON sent: a notification in the device's language (the user's, as stored, when the
    /// device names none) and, as data (strings only), the notification's `seq`, id, type and
    /// the ids to open; an order's pushes at high priority, each kept by Google for `expiry`.
    /// Within FCM's 4 KB: when longer, the texts are shortened, the body's first.
    static func message(for push: StoredNotification, to device: Device, expiry: Duration) -> [UInt8] {
        let message = push.message
        func text(_ key: String?, _ stored: String) -> String {
            guard let locale = device.locale, let key else { return stored }
            return NotificationTexts.render(key, message.args ?? [], locale: locale)
        }
        var data = message.data
        data["seq"] = "\(push.seq)"
        data["id"] = push.id.uuidString
        data["type"] = message.type
        let collapse =
            message.data["payment_id"].map { "payment-\($0)" } ?? message.data["order_id"].map { "order-\($0)" }
        var body = FCMMessage(
            message: .init(
                token: device.token,
                notification: .init(
                    title: text(message.titleKey, message.title), body: text(message.bodyKey, message.body)),
                data: data,
                android: .init(
                    priority: message.type.hasPrefix("order.") ? "high" : "normal",
                    ttl: "\(expiry.components.seconds)s",
                    collapseKey: collapse)))
        let notification = body.message.notification
        return PushTextFit.fitted(
            Array((try? JSONEncoder().encode(body)) ?? Data()), title: notification.title, body: notification.body,
            within: maximumPayloadBytes
        ) {
            (body.message.notification.title, body.message.notification.body) = ($0, $1)
            return Array((try? JSONEncoder().encode(body)) ?? Data())
        }
    }
}

enum FCMError: Error {
    /// The token endpoint did not grant one (its status).
    case tokenRefused(Int)
}

/// The service account's assertion (RFC 7523 §3; Google's `scope` beside the usual claims).
struct AssertionClaims: JWTPayload {
    var iss: IssuerClaim
    var scope: String
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// The token endpoint's answer.
struct GrantedToken: Decodable {
    var accessToken: String
    var expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
    }
}

/// What FCM's refusal says: its `error.details[].errorCode`, or else its `error.status`.
struct FCMAnswer: Decodable {
    struct Failure: Decodable {
        struct Detail: Decodable { var errorCode: String? }
        var status: String?
        var details: [Detail]?
    }

    var error: Failure?

    var code: String? { error?.details?.compactMap(\.errorCode).first ?? error?.status }
}

/// The body of a send.
struct FCMMessage: Encodable {
    struct Message: Encodable {
        struct Notification: Encodable {
            var title: String
            var body: String
        }

        struct Android: Encodable {
            var priority: String
            var ttl: String
            var collapseKey: String?

            enum CodingKeys: String, CodingKey {
                case priority, ttl
                case collapseKey = "collapse_key"
            }
        }

        var token: String
        var notification: Notification
        var data: [String: String]
        var android: Android
    }

    var message: Message
}
