import AsyncHTTPClient
import Contracts
import Domain
import Events
import Foundation
import Logging
import Metrics
import NIOCore
import NIOPosix
import Runtime
import ServiceLifecycle
import Storage
import Synchronization
import Wire

/// Sends what is due, up to `concurrency` at once and at most `perStore` to one store's
/// endpoints, refilled as each attempt ends: every replica runs one; each delivery is claimed
/// by one of them for one attempt, its due time moved on past the longest an attempt takes
/// (twice the timeout, for the address and the answer, and five seconds more), so that one a
/// replica stops in the middle of, a restart included, is tried again soon after. A 2xx answer
/// delivers it; anything else is tried again after a backoff, until `giveUpAfter` from its
/// first attempt (or its redelivery) has passed: then it has failed, its endpoint is turned
/// off, and the store's owners and managers are told.
struct WebhookDispatcher: Service {
    let webhooks: WebhooksRepository
    let settings: WebhookSettings
    let doorbell: Doorbell
    /// Records a delivery given up on and turns its endpoint off (`Notifier.giveUp(on:reason:)`).
    let giveUp: @Sendable (WebhookDelivery, _ reason: String) async throws -> Void
    let logger: Logger

    /// At most this many attempts run at once in one replica.
    static let concurrency = 32
    /// Attempts counted and timed by outcome: `delivered`, `failed` (to be retried), `given_up`.
    static let outcomes = Dictionary(
        uniqueKeysWithValues: ["delivered", "failed", "given_up"].map { outcome in
            let dimensions = [("outcome", outcome)]
            return (
                outcome,
                (
                    Counter(label: "orderly_webhook_deliveries_total", dimensions: dimensions),
                    Metrics.Timer(label: "orderly_webhook_delivery_duration_seconds", dimensions: dimensions)
                )
            )
        })
    /// At most this many of them go to one store's endpoints: a store whose endpoints are slow
    /// to answer (up to the timeout each) holds up its own deliveries, not every store's.
    static let perStore = 4
    /// How often it looks for what is due when nothing rings.
    static let lookInterval = Duration.seconds(1)

    func run() async throws {
        let inFlight = InFlight()
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    // A slot that frees up is filled at once: a slow endpoint holds up only its own.
                    let (free, full) = inFlight.state.withLock { ($0.free, $0.fullStores) }
                    var (started, skipped) = (0, 0)
                    if free > 0 {
                        for due in await due(limit: free, excluding: full) {
                            guard inFlight.state.withLock({ $0.start(due) }) else {
                                skipped += 1
                                continue
                            }
                            started += 1
                            group.addTask {
                                await attempt(due.id)
                                inFlight.state.withLock { $0.finish(due) }
                                doorbell.ring()
                            }
                        }
                    }
                    // Passed over for a store that has its share, more may be due behind: look
                    // again at once, without those stores.
                    if skipped > 0, started > 0 { continue }
                    if started < free || free == 0 { await doorbell.wait(upTo: Self.lookInterval) }
                }
            }
        }
    }

    /// The deliveries being attempted here now, and how many go to each store.
    private final class InFlight: Sendable {
        struct State {
            var ids = Set<WebhookDeliveryID>()
            var perStore: [StoreID: Int] = [:]

            var free: Int { WebhookDispatcher.concurrency - ids.count }
            var fullStores: Set<StoreID> {
                Set(perStore.filter { $0.value >= WebhookDispatcher.perStore }.keys)
            }

            /// Takes a slot for `due`; false when it is in flight already or its store has its share.
            mutating func start(_ due: WebhooksRepository.Due) -> Bool {
                guard perStore[due.store, default: 0] < WebhookDispatcher.perStore, ids.insert(due.id).inserted
                else { return false }
                perStore[due.store, default: 0] += 1
                return true
            }

            mutating func finish(_ due: WebhooksRepository.Due) {
                ids.remove(due.id)
                perStore[due.store, default: 1] -= 1
                if perStore[due.store] == 0 { perStore[due.store] = nil }
            }
        }

        let state = Mutex(State())
    }

    /// Up to `limit` deliveries due now, none to `full` stores (some may be in flight already:
    /// their claim moves them on).
    private func due(limit: Int, excluding full: Set<StoreID>) async -> [WebhooksRepository.Due] {
        do {
            return try await webhooks.due(at: Date(), limit: limit, excluding: full)
        } catch {
            logger.warning("due webhook deliveries not read", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func attempt(_ id: WebhookDeliveryID) async {
        do {
            let now = Date.currentMillisecond
            let lease = now.addingTimeInterval((settings.timeout * 2 + .seconds(5)).timeInterval)
            guard let claimed = try await webhooks.claim(id, at: now, lease: lease) else { return }
            var delivery = claimed.delivery
            guard claimed.endpoint.webhook.active else {
                // Turned off by its owners: nothing goes out; they send it again once it is on.
                delivery.status = .failed
                delivery.lastError = "the endpoint is turned off"
                delivery.nextAttemptAt = nil
                try await webhooks.record(delivery)
                return
            }
            let started = ContinuousClock.now
            let outcome = await TraceContext.span(
                "webhook.deliver", kind: .client,
                attributes: {
                    $0["orderly.webhook.delivery_id"] = "\(id)"
                    $0["orderly.webhook.attempt"] = claimed.delivery.attempts + 1
                }
            ) { await send(claimed, at: now) }
            let took = ContinuousClock.now - started
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
            if let (counter, timer) = Self.outcomes[
                delivery.status == .delivered ? "delivered" : gaveUp ? "given_up" : "failed"]
            {
                counter.increment()
                timer.record(duration: took)
            }
            if gaveUp {
                let last = outcome.status.map { "answered \($0)" } ?? outcome.error ?? "no answer"
                try await giveUp(
                    delivery, "deliveries failed for \(Int(settings.giveUpAfter.timeInterval)) seconds (last: \(last))")
            } else {
                try await webhooks.record(delivery)
            }
        } catch {
            logger.warning(
                "webhook delivery not recorded", metadata: ["webhook.delivery_id": "\(id)", "error": "\(error)"])
        }
    }

    /// One POST of the delivery's body, signed; its status, or why there was none.
    private func send(_ claimed: WebhooksRepository.Claimed, at now: Date) async -> (status: Int?, error: String?) {
        guard let components = URLComponents(string: claimed.endpoint.webhook.url),
            var host = components.host, !host.isEmpty
        else { return (nil, "the URL has no host") }
        // An endpoint registered while plain http was allowed gets nothing once it is not.
        guard settings.destinations.permits(scheme: components.scheme?.lowercased() ?? "") else {
            return (nil, "plain http is refused: the endpoint must be https")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let address: String
        do {
            address = try await settings.destinations.address(of: host)
        } catch {
            return (nil, error.description)
        }
        let timeout = TimeAmount.seconds(settings.timeout.components.seconds)
        let client = WebhookDestinations.client(connecting: host, to: address, timeout: timeout)
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
