public import Runtime

/// Whether webhook endpoints may be plain `http`.
public enum PlainHTTP: String, CaseIterable, Sendable {
    case refused, allowed
}

/// The notifications service's webhook settings.
///
/// | key | variable | default |
/// |---|---|---|
/// | `webhooks.allowedNetworks` | `ORDERLY_WEBHOOKS_ALLOWED_NETWORKS` | none: private, loopback, link-local and metadata destinations are refused |
/// | `webhooks.plainHttp` | `ORDERLY_WEBHOOKS_PLAIN_HTTP` | `refused`: endpoints are `https`; `allowed` lets `http` ones be registered and delivered to (trying them locally) |
/// | `webhooks.retryBaseMilliseconds` | `ORDERLY_WEBHOOKS_RETRY_BASE_MILLISECONDS` | 5000: the first retry's wait, doubled each time up to an hour |
/// | `webhooks.giveUpSeconds` | `ORDERLY_WEBHOOKS_GIVE_UP_SECONDS` | 86400: how long a delivery is retried |
public struct WebhookSettings: Sendable {
    /// Networks deliveries may go to although they are not public (`127.0.0.0/8` in tests).
    public var allowedNetworks: [IPNetwork]
    /// Whether endpoints may be plain `http`, their bodies and signatures readable on the way.
    public var plainHTTP: PlainHTTP
    public var retryBase: Duration
    public var giveUpAfter: Duration
    /// How long one attempt may take, connection included.
    public var timeout: Duration = .seconds(10)

    public init(
        allowedNetworks: [IPNetwork] = [], plainHTTP: PlainHTTP = .refused, retryBase: Duration = .seconds(5),
        giveUpAfter: Duration = .seconds(86_400)
    ) {
        self.allowedNetworks = allowedNetworks
        self.plainHTTP = plainHTTP
        self.retryBase = retryBase
        self.giveUpAfter = giveUpAfter
    }

    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> WebhookSettings {
        var reader = source.settings()
        let networks = reader.networks("webhooks.allowedNetworks")
        let plainHTTP = reader.choice("webhooks.plainHttp", default: PlainHTTP.refused)
        let base = reader.int("webhooks.retryBaseMilliseconds", default: 5000, in: 10...600_000)
        let giveUp = reader.int("webhooks.giveUpSeconds", default: 86_400, in: 1...604_800)
        try reader.finish()
        return WebhookSettings(
            allowedNetworks: networks, plainHTTP: plainHTTP, retryBase: .milliseconds(base),
            giveUpAfter: .seconds(giveUp))
    }

    /// Where deliveries may go, by these settings.
    var destinations: WebhookDestinations {
        WebhookDestinations(allowed: allowedNetworks, plainHTTP: plainHTTP == .allowed)
    }

    /// How long after `attempts` failed attempts the next one comes: the base doubled per
    /// attempt, at most an hour, spread by ±50 % so that endpoints that fail together are not
    /// all tried together again.
    func backoff(after attempts: Int) -> Duration {
        let doubled = retryBase * (1 << min(max(attempts - 1, 0), 20))
        let capped = min(doubled, .seconds(3600))
        return capped * Double.random(in: 0.5...1.5)
    }
}
