import Domain
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import Runtime
import Synchronization
import Testing

@testable import Gateway

@Suite("The HTTP edge")
struct EdgeLimitTests {
    @Test("a public answer for a service out of reach names no host or address")
    func noInternalNames() {
        for code in [ErrorCode.unavailable, .deadlineExceeded] {
            let seen = ErrorEnvelopeMiddleware.publicForm(
                of: OrderlyError(code, "cannot connect to orders.internal:7201 (10.0.3.7): connection refused"),
                logger: Logger(label: "tests.edge"))
            #expect(seen.code == code)
            #expect(!seen.message.contains("7201") && !seen.message.contains("orders.internal"))
        }
        let mine = OrderlyError(.notFound, "no order o1")
        #expect(ErrorEnvelopeMiddleware.publicForm(of: mine, logger: Logger(label: "tests.edge")) == mine)
    }

    @Test("a long-poll is held no longer than the operator's maximum, whatever its wait; 1 to 30 seconds")
    func longPollMaximum() async throws {
        #expect(try InProcessSuite.gatewaySettings().longPollMaximumWait == .seconds(30))
        for bad in ["0", "31", "x"] {
            #expect(throws: ConfigurationError.self) {
                try InProcessSuite.gatewaySettings(["notifications.maxWaitSeconds": bad])
            }
        }
        try await InProcessSuite.with(settings: ["notifications.maxWaitSeconds": "1"]) { suite in
            let api = try API()
            let admin = try await api.admin(suite)
            let asked = ContinuousClock.now
            let inbox = try await api.send(suite, "GET", "/v1/notifications?after=0&wait=30", token: admin)
            #expect(inbox.status == 200 && (inbox.object["data"] as? [Any])?.isEmpty == true)
            #expect(ContinuousClock.now - asked < .seconds(20), "held for the wait asked, not the maximum")
        }
    }

    @Test("at most eight long-polls and four streams wait for one user; another user is not affected")
    func longPollsPerUser() async {
        let hub = WakeHub()
        let (user, other) = (UserID(), UserID())
        for kind in WakeHub.Kind.allCases {
            var tickets: [UInt64] = []
            for _ in 0..<kind.maximumPerUser { tickets.append(await hub.enter(user, kind)!) }
            #expect(await hub.enter(user, kind) == nil)
            #expect(await hub.enter(other, kind) != nil)
            await hub.leave(tickets[0])
            #expect(await hub.enter(user, kind) != nil)
        }
    }

    @Test("a closed hub releases every wait and lets none start", .timeLimit(.minutes(1)))
    func hubClosing() async throws {
        let hub = WakeHub()
        let ticket = try #require(await hub.enter(UserID(), .stream))
        let waiting = Task { await hub.wait(ticket, timeout: .seconds(3600)) }
        await hub.close()
        await waiting.value
        #expect(await hub.isClosed)
        await hub.wait(ticket, timeout: .seconds(3600))
    }

    @Test("connections beyond the maximum are closed as they open; a closed one makes room")
    func connectionCap() throws {
        let limit = ConnectionLimit(maximum: 2, logger: Logger(label: "tests.edge"))
        func accept() throws -> EmbeddedChannel {
            let channel = EmbeddedChannel(handler: limit.handler())
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            return channel
        }
        let first = try accept()
        let second = try accept()
        let third = try accept()
        #expect(first.isActive && second.isActive && !third.isActive)
        _ = try first.finish()
        let fourth = try accept()
        #expect(fourth.isActive)
        _ = try? second.finish()
        _ = try? fourth.finish()
    }
}

@Suite("Rate limits per user and per address")
struct RateLimitTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let now = Mutex<UInt64>(1_000_000_000)
        func advance(seconds: Double) { now.withLock { $0 += UInt64(seconds * 1e9) } }
        func read() -> UInt64 { now.withLock { $0 } }
    }

    @Test("a user gets the burst at once, then the rate; another user has a bucket of their own")
    func bucket() {
        let clock = ManualClock()
        let limit = RateLimit<UserID>(perSecond: 2, burst: 3, clock: clock.read)
        let (user, other) = (UserID(), UserID())
        for _ in 0..<3 { #expect(limit.take(user) == nil) }
        #expect(limit.take(user) == 1)
        #expect(limit.take(other) == nil)
        clock.advance(seconds: 0.5)  // one token back at two a second
        #expect(limit.take(user) == nil)
        #expect(limit.take(user) == 1)
        clock.advance(seconds: 60)  // never more than the burst
        for _ in 0..<3 { #expect(limit.take(user) == nil) }
        #expect(limit.take(user) != nil)
    }

    @Test("a slow rate asks for a longer wait")
    func retryAfter() {
        let clock = ManualClock()
        let limit = RateLimit<UserID>(perSecond: 1, burst: 1, clock: clock.read)
        let user = UserID()
        #expect(limit.take(user) == nil)
        #expect(limit.take(user) == 1)
        let slow = RateLimit<UserID>(perSecond: 1, burst: 1, clock: clock.read)
        _ = slow.take(user)
        clock.advance(seconds: 0.2)
        #expect(slow.take(user) == 1)  // 0.8 s left, rounded up
    }

    @Test("idle users' buckets are dropped once the table is large")
    func sweep() {
        let clock = ManualClock()
        let limit = RateLimit<UserID>(perSecond: 10, burst: 10, clock: clock.read)
        for _ in 0..<10_001 { _ = limit.take(UserID()) }
        clock.advance(seconds: 5)
        let busy = UserID()
        _ = limit.take(busy)
        #expect(limit.bucketCount == 1)
    }

    /// The error envelope as the gateway puts it first, over a small body limit.
    static func envelope() async -> ErrorEnvelopeMiddleware {
        ErrorEnvelopeMiddleware(
            maximumBodyBytes: 1024,
            tokens: await TokenIssuer.make(
                secret: "edge-limit-tests-secret-0123456789", accessLifetime: .seconds(60),
                refreshLifetime: .seconds(60)))
    }

    @Test("the 429 answer carries Retry-After and the error envelope; unsigned requests pass")
    func answer() async throws {
        let clock = ManualClock()
        let router = Router(context: GatewayContext.self)
        router.add(middleware: await Self.envelope())
        router.add(middleware: SignedInAs())
        router.add(
            middleware: UserRateLimitMiddleware(limit: RateLimit(perSecond: 1, burst: 2, clock: clock.read)))
        router.get("ping") { _, _ in "pong" }
        let app = Application(router: router)
        try await app.test(.router) { client in
            let user = UserID().description
            for _ in 0..<2 {
                try await client.execute(uri: "/ping", method: .get, headers: [.userForTest: user]) {
                    #expect($0.status == .ok)
                }
            }
            try await client.execute(uri: "/ping", method: .get, headers: [.userForTest: user]) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "1")
                let text = String(buffer: response.body)
                #expect(text.contains("\"rate_limited\"") && text.contains("resource_exhausted"))
            }
            for _ in 0..<5 {
                try await client.execute(uri: "/ping", method: .get) { #expect($0.status == .ok) }
            }
        }
    }

    @Test("requests without a valid token are limited per client address; a signed-in user's are not counted")
    func anonymous() async throws {
        let clock = ManualClock()
        let router = Router(context: GatewayContext.self)
        router.add(middleware: await Self.envelope())
        router.add(middleware: SignedInAs())
        router.add(
            middleware: AnonymousRateLimitMiddleware(
                limit: RateLimit(perSecond: 1, burst: 2, clock: clock.read),
                clients: ClientAddressResolver(trustedProxies: [])))
        router.post("payments/provider-events") { _, _ in "taken" }
        let app = Application(router: router)
        try await app.test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/payments/provider-events", method: .post) { #expect($0.status == .ok) }
            }
            // A forwarded address from a peer that is no trusted proxy changes nothing.
            try await client.execute(
                uri: "/payments/provider-events", method: .post, headers: [.xForwardedFor: "203.0.113.9"]
            ) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "1")
            }
            for _ in 0..<5 {
                try await client.execute(
                    uri: "/payments/provider-events", method: .post, headers: [.userForTest: UserID().description]
                ) { #expect($0.status == .ok) }
            }
            clock.advance(seconds: 1)
            try await client.execute(uri: "/payments/provider-events", method: .post) { #expect($0.status == .ok) }
        }
    }

    /// Stands in for the bearer check: the caller named by a header.
    struct SignedInAs: RouterMiddleware {
        typealias Context = GatewayContext
        func handle(
            _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
        ) async throws -> Response {
            var context = context
            if let text = request.headers[.userForTest], let user = UserID(text) {
                context.caller = .success(Principal(userID: user, role: .staff, storeID: StoreID()))
            }
            return try await next(request, context)
        }
    }
}

extension HTTPField.Name {
    fileprivate static let userForTest = Self("X-Test-User")!
}
