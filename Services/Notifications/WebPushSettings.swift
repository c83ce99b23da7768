import Foundation
public import JWTKit
public import Runtime

/// The notifications service's Web Push settings (RFC 8030): browsers' subscriptions pushed to
/// through their push services, each message encrypted for its subscription (RFC 8291) and
/// signed with the application server's key (VAPID, RFC 8292). Off unless the key and subject
/// are set; the key's public half is what web apps subscribe with (`applicationServerKey`),
/// logged at start.
///
/// | key | variable | default |
/// |---|---|---|
/// | `push.web.vapidKey` | `ORDERLY_PUSH_WEB_VAPID_KEY` (environment only) | none: the P-256 private key's PEM text |
/// | `push.web.subject` | `ORDERLY_PUSH_WEB_SUBJECT` | none: a `mailto:` or `https:` address push services may write to |
/// | `push.web.allowedNetworks` | `ORDERLY_PUSH_WEB_ALLOWED_NETWORKS` | none: endpoints at private, loopback, link-local and metadata addresses are refused |
/// | `push.web.trustFile` | `ORDERLY_PUSH_WEB_TRUST_FILE` | none: the system's authorities only |
/// | `push.web.retryBaseMilliseconds` | `ORDERLY_PUSH_WEB_RETRY_BASE_MILLISECONDS` | 1000: the first retry's wait, doubled each time |
public struct WebPushSettings: Sendable {
    public var key: ES256PrivateKey
    public var subject: String
    /// Where pushes may go: an endpoint's every address public, or in the networks allowed.
    public var destinations: WebhookDestinations
    /// A PEM file of authorities trusted besides the system's (a test server's).
    public var trustFile: String?
    public var retryBase: Duration
    /// Attempts of one push before it is given up (the inbox still has it).
    public var attempts = 5
    /// How long one attempt may take, connection included.
    public var timeout: Duration = .seconds(10)
    /// How long a push service keeps a message for a browser that is away (`TTL`).
    public var expiry: Duration = .seconds(3600)

    /// The settings in `source`; nil when Web Push is not configured.
    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> WebPushSettings? {
        var reader = source.settings()
        let pem = reader.optionalSecret("push.web.vapidKey")
        let subject = reader.optionalString("push.web.subject")
        let networks = reader.networks("push.web.allowedNetworks")
        let trustFile = reader.optionalString("push.web.trustFile")
        let retryBase = reader.int("push.web.retryBaseMilliseconds", default: 1000, in: 10...600_000)
        if let subject, !(subject.hasPrefix("mailto:") || subject.hasPrefix("https://")) {
            reader.report("push.web.subject", "expected a mailto: or https: address, got '\(subject)'")
        }
        guard pem != nil || subject != nil else {
            try reader.finish()
            return nil
        }
        var key: ES256PrivateKey?
        if let pem {
            key = try? ES256PrivateKey(pem: pem)
            if key == nil { reader.report("push.web.vapidKey", "is not a P-256 private key in PEM") }
        } else {
            reader.report("push.web.vapidKey", "is required with push.web.subject")
        }
        if subject == nil { reader.report("push.web.subject", "is required with the key") }
        try reader.finish()
        guard let key, let subject else { return nil }
        return WebPushSettings(
            key: key, subject: subject, destinations: WebhookDestinations(allowed: networks), trustFile: trustFile,
            retryBase: .milliseconds(retryBase))
    }
}
