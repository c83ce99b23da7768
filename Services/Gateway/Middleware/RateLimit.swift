import Domain
import Hummingbird
import NIOCore
import Synchronization

/// A token bucket per key: `burst` requests at once, then `perSecond` a second. The gateway
/// keeps one per signed-in user (`UserRateLimitMiddleware`) and one per client address for the
/// requests without a valid token (`AnonymousRateLimitMiddleware`: logins, refreshes, providers'
/// reports, whatever route comes to need no token). A request over the limit is answered `429`
/// (`resource_exhausted`, reason `rate_limited`) with `Retry-After`, before it reaches any
/// service. The buckets live in this gateway replica's memory: with N replicas behind a
/// balancer a key gets up to N times the rate, which bounds a runaway client without a Redis
/// round trip on every request.
final class RateLimit<Key: Hashable & Sendable>: Sendable {
    let perSecond: Double
    let burst: Double
    private let clock: @Sendable () -> UInt64
    private let state = Mutex(State())

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    private struct State {
        var buckets: [Key: Bucket] = [:]
        var lastSweep: UInt64 = 0
    }

    /// How many buckets are kept before full (idle) ones are dropped.
    private static var sweepAbove: Int { 10_000 }

    init(
        perSecond: Int, burst: Int,
        clock: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds }
    ) {
        self.perSecond = Double(perSecond)
        self.burst = Double(burst)
        self.clock = clock
    }

    /// Takes one request from `key`'s bucket; nil when allowed, else the whole seconds to wait.
    func take(_ key: Key) -> Int? {
        let now = clock()
        return state.withLock { state in
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + Double(now &- bucket.updated) / 1e9 * perSecond)
            bucket.updated = now
            defer {
                state.buckets[key] = bucket
                if state.buckets.count > Self.sweepAbove { sweep(&state, now: now) }
            }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Drops the buckets that have filled up again (their keys went quiet), at most once a
    /// second, so that the table holds only those busy now.
    private func sweep(_ state: inout State, now: UInt64) {
        guard now &- state.lastSweep > 1_000_000_000 else { return }
        state.lastSweep = now
        state.buckets = state.buckets.filter { _, bucket in
            bucket.tokens + Double(now &- bucket.updated) / 1e9 * perSecond < burst
        }
    }

    var bucketCount: Int { state.withLock { $0.buckets.count } }
}

/// Applies a limit per user to every request with a valid access token.
struct UserRateLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let limit: RateLimit<UserID>

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        if case .success(let principal) = context.caller, let wait = limit.take(principal.userID) {
            throw RateLimit<UserID>.refusal(wait)
        }
        return try await next(request, context)
    }
}

/// Applies a limit per client address (an IPv6 client by its /64, behind trusted proxies the
/// address they forward) to every request without a valid access token.
struct AnonymousRateLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let limit: RateLimit<String>
    let clients: ClientAddressResolver

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        if case .success = context.caller { return try await next(request, context) }
        let client = clients.client(peer: context.clientAddress, forwardedFor: request.headers[values: .xForwardedFor])
        if let wait = limit.take(client?.rateLimitKey ?? "unknown") { throw RateLimit<String>.refusal(wait) }
        return try await next(request, context)
    }
}

extension RateLimit {
    /// The answer to a request over the limit, to try again in `wait` seconds.
    static func refusal(_ wait: Int) -> OrderlyError {
        OrderlyError(
            .rateLimited, "too many requests; try again in \(wait) seconds",
            details: ["retry_after_seconds": .int(Int64(wait))])
    }
}
