import Domain
import Hummingbird
import NIOCore
import Synchronization

/// A token bucket per signed-in user: `burst` requests at once, then `perSecond` a second.
/// A request over the limit is answered `429` (`resource_exhausted`, reason `rate_limited`) with
/// `Retry-After`, before it reaches any service. Requests without a valid token are not counted
/// here (the login limiter guards sign-in). The buckets live in this gateway replica's memory:
/// with N replicas behind a balancer a user gets up to N times the rate, which bounds a runaway
/// client without a Redis round trip on every request.
final class UserRateLimit: Sendable {
    let perSecond: Double
    let burst: Double
    private let clock: @Sendable () -> UInt64
    private let state = Mutex(State())

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    private struct State {
        var buckets: [UserID: Bucket] = [:]
        var lastSweep: UInt64 = 0
    }

    /// How many buckets are kept before full (idle) ones are dropped.
    private static let sweepAbove = 10_000

    init(
        perSecond: Int, burst: Int,
        clock: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds }
    ) {
        self.perSecond = Double(perSecond)
        self.burst = Double(burst)
        self.clock = clock
    }

    /// Takes one request from `user`'s bucket; nil when allowed, else the whole seconds to wait.
    func take(_ user: UserID) -> Int? {
        let now = clock()
        return state.withLock { state in
            var bucket = state.buckets[user] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + Double(now &- bucket.updated) / 1e9 * perSecond)
            bucket.updated = now
            defer {
                state.buckets[user] = bucket
                if state.buckets.count > Self.sweepAbove { sweep(&state, now: now) }
            }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Drops the buckets that have filled up again (their users went quiet), at most once a
    /// second, so that the table holds only users who are busy now.
    private func sweep(_ state: inout State, now: UInt64) {
        guard now &- state.lastSweep > 1_000_000_000 else { return }
        state.lastSweep = now
        state.buckets = state.buckets.filter { _, bucket in
            bucket.tokens + Double(now &- bucket.updated) / 1e9 * perSecond < burst
        }
    }

    var bucketCount: Int { state.withLock { $0.buckets.count } }

    /// The middleware that applies the limit to every request with a valid access token.
    struct Middleware: RouterMiddleware {
        typealias Context = GatewayContext
        let limit: UserRateLimit

        func handle(
            _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
        ) async throws -> Response {
            if case .success(let principal) = context.caller, let wait = limit.take(principal.userID) {
                throw OrderlyError(
                    .resourceExhausted, "too many requests; try again in \(wait) seconds", reason: "rate_limited",
                    details: ["retry_after_seconds": .int(Int64(wait))])
            }
            return try await next(request, context)
        }
    }
}
