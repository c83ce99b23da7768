import AsyncHTTPClient
import Contracts
import Crypto
import Domain
import Foundation
import JWTKit
import NIOCore
import NIOSSL

/// Sends pushes to browsers through their push services (RFC 8030): `POST <endpoint>` with the
/// message encrypted for the subscription (`WebPushEncryption`, RFC 8291) and signed for this
/// application server (VAPID, RFC 8292: an ES256 JWT for the endpoint's origin, and the key's
/// public half). An endpoint is the browser's to choose, so it is reached as webhooks are: its
/// name resolved here, every address checked against `WebPushSettings.destinations`, and the
/// connection made to the address checked, with no redirect followed.
final class WebPushClient: Sendable {
    private let settings: WebPushSettings
    private let keys = JWTKeyCollection()
    private let tls: TLSConfiguration?
    /// The key's public half as push services read it: base64url of the uncompressed point.
    let publicKey: String

    init(settings: WebPushSettings) throws {
        self.settings = settings
        publicKey = Base64URL.encoded(
            Array(
                try P256.Signing.PublicKey(pemRepresentation: settings.key.publicKey.pemRepresentation)
                    .x963Representation))
        if let trustFile = settings.trustFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(trustFile)]
            self.tls = tls
        } else {
            tls = nil
        }
    }

    func send(_ push: StoredNotification, to device: Device) async -> PushOutcome {
        guard
            let subscriber = device.keys?.p256dh.flatMap(Base64URL.decoded)
                .flatMap({ try? P256.KeyAgreement.PublicKey(x963Representation: $0) }),
            let auth = device.keys?.auth.flatMap(Base64URL.decoded),
            let url = URLComponents(string: device.token), url.scheme?.lowercased() == "https",
            var host = url.host, !host.isEmpty
        else { return .tokenInvalid(since: Date(), reason: "not a subscription a push can be encrypted for") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let address: String
        do {
            address = try await settings.destinations.address(of: host)
        } catch {
            switch error {
            // The browser named a place pushes may not go: no push to it will ever be sent.
            case .refused: return .tokenInvalid(since: Date(), reason: error.description)
            case .unreachable: return .retry(error.description)
            }
        }
        let body: [UInt8]
        let authorization: String
        do {
            body = try WebPushEncryption.encrypt(
                Self.payload(for: push, locale: device.locale), subscriberKey: subscriber, authSecret: auth)
            authorization = "vapid t=\(try await vapidToken(audience: Self.origin(of: url))), k=\(publicKey)"
        } catch {
            return .refused("not encrypted or signed: \(error)")
        }
        let client = WebhookDestinations.client(
            connecting: host, to: address, timeout: .seconds(settings.timeout.components.seconds), tls: tls)
        let outcome = await post(body, authorization: authorization, for: push, to: device, with: client)
        try? await client.shutdown()
        return outcome
    }

    /// One attempt's request and what its answer means.
    private func post(
        _ body: [UInt8], authorization: String, for push: StoredNotification, to device: Device, with client: HTTPClient
    ) async -> PushOutcome {
        let timeout = TimeAmount.seconds(settings.timeout.components.seconds)
        var request = HTTPClientRequest(url: device.token)
        request.method = .POST
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "TTL", value: "\(settings.expiry.components.seconds)")
        request.headers.add(name: "Urgency", value: push.message.type.hasPrefix("order.") ? "high" : "normal")
        if let topic = Self.topic(for: push) { request.headers.add(name: "Topic", value: topic) }
        request.headers.add(name: "Authorization", value: authorization)
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            _ = try? await response.body.collect(upTo: 16 << 10)
            let status = Int(response.status.code)
            switch status {
            case 200...299: return .delivered
            // The subscription expired or was cancelled: no push to it will ever be taken.
            case 404, 410: return .tokenInvalid(since: Date(), reason: "\(status) from the push service")
            case 429, 500...599: return .retry("\(status) from the push service")
            default:
                // The sender's fault (its key, its signature, the size), not the subscription's.
                return .refused("\(status) from the push service")
            }
        } catch {
            return .retry("no answer: \(String(describing: error).prefix(200))")
        }
    }

    /// A VAPID token for `audience`: an ES256 JWT of it, valid for 12 hours, naming the
    /// operator's contact.
    private func vapidToken(audience: String) async throws -> String {
        await keys.add(ecdsa: settings.key)
        return try await keys.sign(
            VAPIDClaims(
                aud: AudienceClaim(value: audience), exp: ExpirationClaim(value: Date().addingTimeInterval(12 * 3600)),
                sub: SubjectClaim(value: settings.subject)))
    }

    /// The origin a push service checks a VAPID token's audience against: scheme, host and
    /// port as the endpoint writes them.
    static func origin(of url: URLComponents) -> String {
        "\(url.scheme?.lowercased() ?? "https")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Pushes of one payment, or of one order, replace each other while waiting (RFC 8030's
    /// `Topic`: at most 32 base64url characters).
    static func topic(for push: StoredNotification) -> String? {
        let subject = push.message.data["payment_id"].map { "p\($0)" } ?? push.message.data["order_id"].map { "o\($0)" }
        return subject.map { String($0.filter { $0.isLetter || $0.isNumber }.prefix(32)) }
    }

    /// The JSON a browser's service worker reads: the texts in the device's language (the
    /// user's, as stored, when it names none), the notification's `seq`, id, type and the ids
    /// to open; shortened to what one push carries, the body's text first.
    static func payload(for push: StoredNotification, locale: String?) -> [UInt8] {
        let message = push.message
        func text(_ key: String?, _ stored: String) -> String {
            guard let locale, let key else { return stored }
            return NotificationTexts.render(key, message.args ?? [], locale: locale)
        }
        var payload = WebPushPayload(
            title: text(message.titleKey, message.title), body: text(message.bodyKey, message.body), seq: push.seq,
            id: push.id, type: message.type, data: message.data)
        return PushTextFit.fitted(
            Array((try? JSONEncoder().encode(payload)) ?? Data()), title: payload.title, body: payload.body,
            within: WebPushEncryption.maximumPlaintextBytes
        ) {
            (payload.title, payload.body) = ($0, $1)
            return Array((try? JSONEncoder().encode(payload)) ?? Data())
        }
    }

}

/// The claims of a VAPID token (RFC 8292 §2).
struct VAPIDClaims: JWTPayload {
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var sub: SubjectClaim

    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}

/// The body of a push to a browser, before encryption.
struct WebPushPayload: Encodable {
    var title: String
    var body: String
    var seq: Int64
    /// As the inbox writes it.
    var id: UUID
    var type: String
    var data: [String: String]
}
