import AsyncHTTPClient
import Contracts
import Domain
import Foundation
import Logging
import NIOCore
import NIOPosix
public import Runtime
import ServiceLifecycle
import Storage
import Synchronization
import Wire

/// The notifications service's webhook settings.
///
/// | key | variable | default |
/// |---|---|---|
/// | `webhooks.allowedNetworks` | `ORDERLY_WEBHOOKS_ALLOWED_NETWORKS` | none: private, loopback, link-local and metadata destinations are refused |
/// | `webhooks.retryBaseMilliseconds` | `ORDERLY_WEBHOOKS_RETRY_BASE_MILLISECONDS` | 5000: the first retry's wait, doubled each time up to an hour |
/// | `webhooks.giveUpSeconds` | `ORDERLY_WEBHOOKS_GIVE_UP_SECONDS` | 86400: how long a delivery is retried |
public struct WebhookSettings: Sendable {
    /// Networks deliveries may go to although they are not public (`127.0.0.0/8` in tests).
    public var allowedNetworks: [IPNetwork]
    public var retryBase: Duration
    public var giveUpAfter: Duration
    /// How long one attempt may take, connection included.
    public var timeout: Duration = .seconds(10)

    public init(
        allowedNetworks: [IPNetwork] = [], retryBase: Duration = .seconds(5), giveUpAfter: Duration = .seconds(86_400)
    ) {
        self.allowedNetworks = allowedNetworks
        self.retryBase = retryBase
        self.giveUpAfter = giveUpAfter
    }

    public static func read(from source: ConfigurationSource) throws(ConfigurationError) -> WebhookSettings {
        var reader = source.settings()
        var networks: [IPNetwork] = []
        let text = reader.string("webhooks.allowedNetworks", default: "none")
        if text != "none" {
            for item in text.split(separator: ",") {
                if let network = IPNetwork(item.trimmingCharacters(in: .whitespaces)) {
                    networks.append(network)
                } else {
                    reader.report(
                        "webhooks.allowedNetworks", "expected addresses or networks (127.0.0.0/8), got '\(item)'")
                }
            }
        }
        let base = reader.int("webhooks.retryBaseMilliseconds", default: 5000, in: 10...600_000)
        let giveUp = reader.int("webhooks.giveUpSeconds", default: 86_400, in: 1...604_800)
        try reader.finish()
        return WebhookSettings(
            allowedNetworks: networks, retryBase: .milliseconds(base), giveUpAfter: .seconds(giveUp))
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

/// Where deliveries may go. A destination's every address must be public, or in the networks
/// the operator allows: not loopback, private, shared, link-local (where cloud metadata
/// services answer, `169.254.169.254`), multicast or reserved, in IPv4 or IPv6. The address
/// checked is the one connected to: the name is resolved here, once, and the connection is
/// made to that address.
public struct WebhookDestinations: Sendable {
    let allowed: [IPNetwork]

    static let refused: [IPNetwork] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
        "224.0.0.0/4", "240.0.0.0/4", "::/128", "::1/128", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7",
        "fe80::/10", "ff00::/8",
    ].compactMap { IPNetwork($0) }

    public init(allowed: [IPNetwork]) { self.allowed = allowed }

    /// Whether a delivery may connect to `address`.
    public func permits(_ address: IPAddress) -> Bool {
        allowed.contains { $0.contains(address) } || !Self.refused.contains { $0.contains(address) }
    }

    /// The address to connect to for `host`: its first, when every one it resolves to is
    /// permitted.
    func address(of host: String) async throws(DeliveryFailure) -> String {
        if let literal = IPAddress(host) {
            guard permits(literal) else { throw .refused(host) }
            return host
        }
        let resolved: [String]
        do {
            resolved = try await HostResolver.system.addresses(host)
        } catch {
            throw .unreachable("cannot resolve \(host)")
        }
        guard let first = resolved.first else { throw .unreachable("cannot resolve \(host)") }
        guard resolved.allSatisfy({ IPAddress($0).map(permits) ?? false }) else { throw .refused(host) }
        return first
    }
}

/// Why an attempt got no answer.
enum DeliveryFailure: Error, Sendable {
    /// The destination resolves to an address deliveries may not go to.
    case refused(String)
    case unreachable(String)

    var description: String {
        switch self {
        case .refused(let host): "destination \(host) is not a public address"
        case .unreachable(let reason): reason
        }
    }
}

/// Rings when there is new work (deliveries stored, pushes queued), so that the task waiting
/// for it starts at once instead of at its next look.
public final class Doorbell: Sendable {
    private let state = Mutex<(rung: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    public init() {}

    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            if state.waiter == nil { state.rung = true }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns when rung (or at once if it rang since the last wait), after `timeout`, or when
    /// the waiting task is cancelled.
    func wait(upTo timeout: Duration) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.ring()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
        timer.cancel()
    }
}

/// Sends what is due, up to `concurrency` at once and refilled as each attempt ends: every
/// replica runs one; each delivery is claimed by one of them for one attempt (its due time moved
/// a minute on, so a replica that stops mid-attempt leaves it to be tried again then). A 2xx
/// answer delivers it; anything else is tried again after a backoff, until `giveUpAfter` from
/// its first attempt (or its redelivery) has passed: then it has failed, its endpoint is turned
/// off, and the store's owners and managers are told.
struct WebhookDispatcher: Service {
    let webhooks: WebhookRepository
    let settings: WebhookSettings
    let doorbell: Doorbell
    /// Turns off an endpoint whose deliveries kept failing and tells those who run the store.
    let disable: @Sendable (WebhookID, _ reason: String) async throws -> Void
    let logger: Logger

    /// At most this many attempts run at once in one replica.
    static let concurrency = 32
    /// How often it looks for what is due when nothing rings.
    static let lookInterval = Duration.seconds(1)

    func run() async throws {
        let inFlight = InFlight()
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    // A slot that frees up is filled at once: a slow endpoint holds up only its own.
                    let free = Self.concurrency - inFlight.ids.withLock { $0.count }
                    var started = 0
                    if free > 0 {
                        for id in await due(limit: free) where inFlight.ids.withLock({ $0.insert(id).inserted }) {
                            started += 1
                            group.addTask {
                                await attempt(id)
                                inFlight.ids.withLock { _ = $0.remove(id) }
                                doorbell.ring()
                            }
                        }
                    }
                    if started < free || free == 0 { await doorbell.wait(upTo: Self.lookInterval) }
                }
            }
        }
    }

    /// The deliveries being attempted here now.
    private final class InFlight: Sendable {
        let ids = Mutex(Set<WebhookDeliveryID>())
    }

    /// Up to `limit` deliveries due now (some may be in flight already: their claim moves them on).
    private func due(limit: Int) async -> [WebhookDeliveryID] {
        do {
            return try await webhooks.due(at: Date(), limit: limit)
        } catch {
            logger.warning("due webhook deliveries not read", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func attempt(_ id: WebhookDeliveryID) async {
        do {
            let now = Date.currentMillisecond
            guard let claimed = try await webhooks.claim(id, at: now, lease: now.addingTimeInterval(60)) else { return }
            var delivery = claimed.delivery
            guard claimed.endpoint.webhook.active else {
                // Turned off by its owners: nothing goes out; they send it again once it is on.
                delivery.status = .failed
                delivery.lastError = "the endpoint is turned off"
                delivery.nextAttemptAt = nil
                try await webhooks.record(delivery)
                return
            }
            let outcome = await send(claimed, at: now)
            delivery.attempts += 1
            delivery.lastAttemptAt = now
            delivery.lastStatusCode = outcome.status
            delivery.lastError = outcome.error
            let finished = Date.currentMillisecond
            var gaveUp = false
            if let status = outcome.status, (200..<300).contains(status) {
                delivery.status = .delivered
                delivery.deliveredAt = finished
                delivery.nextAttemptAt = nil
            } else {
                let next = finished.addingTimeInterval(settings.backoff(after: delivery.attempts).timeInterval)
                if next.timeIntervalSince(claimed.windowStart) > settings.giveUpAfter.timeInterval {
                    delivery.status = .failed
                    delivery.nextAttemptAt = nil
                    gaveUp = true
                } else {
                    delivery.nextAttemptAt = next
                }
            }
            try await webhooks.record(delivery)
            if gaveUp {
                let last = outcome.status.map { "answered \($0)" } ?? outcome.error ?? "no answer"
                try await disable(
                    delivery.webhookID,
                    "deliveries failed for \(Int(settings.giveUpAfter.timeInterval)) seconds (last: \(last))")
            }
        } catch {
            logger.warning(
                "webhook delivery not recorded", metadata: ["webhook.delivery_id": "\(id)", "error": "\(error)"])
        }
    }

    /// One POST of the delivery's body, signed; its status, or why there was none.
    private func send(_ claimed: WebhookRepository.Claimed, at now: Date) async -> (status: Int?, error: String?) {
        guard let components = URLComponents(string: claimed.endpoint.webhook.url),
            var host = components.host, !host.isEmpty
        else { return (nil, "the URL has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let address: String
        do {
            address = try await WebhookDestinations(allowed: settings.allowedNetworks).address(of: host)
        } catch {
            return (nil, error.description)
        }
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let timeout = TimeAmount.seconds(settings.timeout.components.seconds)
        configuration.timeout = .init(connect: timeout)
        configuration.dnsOverride = [host: address]
        // A refused connection is this attempt's failure, not a reason to hold the slot while
        // the client tries again until the timeout: the backoff decides when to try again.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var request = HTTPClientRequest(url: claimed.endpoint.webhook.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Orderly-Webhooks/1")
        request.headers.add(name: "Orderly-Delivery-Id", value: claimed.delivery.id.description)
        request.headers.add(name: "Orderly-Event-Type", value: claimed.delivery.eventType)
        request.headers.add(
            name: OrderlySignature.headerName,
            value: OrderlySignature.header(body: claimed.body, secret: claimed.endpoint.secret, at: Date()))
        request.body = .bytes(ByteBuffer(string: claimed.body))
        let outcome: (status: Int?, error: String?)
        do {
            let response = try await client.execute(request, timeout: timeout)
            _ = try? await response.body.collect(upTo: 64 << 10)
            outcome = (Int(response.status.code), nil)
        } catch {
            outcome = (nil, "no answer: \(String(describing: error).prefix(200))")
        }
        try? await client.shutdown()
        return outcome
    }
}
