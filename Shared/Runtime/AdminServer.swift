import Foundation
public import Hummingbird
public import Logging
import Metrics
public import NIOCore
public import ServiceLifecycle

/// One thing `/readyz` checks: a database, Redis, an upstream service.
public struct ReadinessCheck: Sendable {
    /// What a failing check means for the process's readiness.
    public enum Effect: Sendable {
        /// The process cannot serve without it (its database): not ready.
        case required
        /// Another Orderly service: not ready, unless `/readyz?upstreams=false` leaves it out.
        case upstream
        /// The process is built to ride it out (Redis: the outbox keeps events, the limiters
        /// fall back to their own counts): reported, and alerted on through
        /// `orderly_dependency_up`, but the process stays ready.
        case riddenOut
    }

    public var name: String
    public var effect: Effect
    /// Throws when the dependency is not usable.
    public var check: @Sendable () async throws -> Void

    public init(_ name: String, _ effect: Effect = .required, check: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.effect = effect
        self.check = check
    }
}

/// The operator's HTTP port of every process: `/healthz` (the process is alive), `/readyz`
/// (every check runs; 503 `not_ready` naming the failing ones when one the process cannot serve
/// without fails, 200 `degraded` when only one it rides out does, 200 `ready` otherwise) and
/// `/metrics` (Prometheus text format). `/readyz?upstreams=false` leaves the other services out:
/// what the readiness probe of a service wants, so that one service down does not take every
/// service that calls it out of rotation too. `/readyz?upstreams=any` is the gateway's: ready
/// while it reaches any of the services behind it (one down answers 503 for what needs it alone),
/// not ready when it reaches none (its own network is at fault).
public struct AdminServer: Service {
    private let host: String
    private let port: Int
    private let checks: [ReadinessCheck]
    private let logger: Logger
    private let onListening: @Sendable (SocketAddress) async -> Void

    public init(
        host: String, port: Int, checks: [ReadinessCheck], logger: Logger,
        onListening: @escaping @Sendable (SocketAddress) async -> Void = { _ in }
    ) {
        self.host = host
        self.port = port
        self.checks = checks
        self.logger = logger
        self.onListening = onListening
    }

    /// The routes, for in-process tests.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        Self.addRoutes(to: router, checks: checks)
        return router
    }

    /// Adds `/healthz`, `/readyz` and `/metrics` to `router`: the admin port's only routes, on
    /// no public port.
    static func addRoutes<Context: RequestContext>(to router: Router<Context>, checks: [ReadinessCheck]) {
        router.get("/healthz") { _, _ in
            Self.json(.ok, ["status": "ok"])
        }
        router.get("/readyz") { request, _ in
            let upstreams = request.uri.queryParameters.get("upstreams") ?? "all"
            let chosen = upstreams == "false" ? checks.filter { $0.effect != .upstream } : checks
            let results = await Self.run(chosen)
            let status = Self.status(of: chosen, results: results, anyUpstream: upstreams == "any")
            return Self.json(status == "not_ready" ? .serviceUnavailable : .ok, ["status": status, "checks": results])
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: await MetricsExporter.exposition())))
        }
    }

    public func run() async throws {
        let onListening = self.onListening
        let app = Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "orderly-admin"),
            onServerRunning: { channel in
                if let address = channel.localAddress { await onListening(address) }
            },
            logger: logger)
        try await app.run()
    }

    /// Runs every check at once, each limited to two seconds: name → "ok" or why not.
    static func run(_ checks: [ReadinessCheck]) async -> [String: String] {
        await withTaskGroup(of: (String, String).self) { group in
            for check in checks {
                group.addTask {
                    do {
                        try await withThrowingTaskGroup(of: Void.self) { inner in
                            inner.addTask { try await check.check() }
                            inner.addTask {
                                try await Task.sleep(for: .seconds(2))
                                throw ReadinessTimeout()
                            }
                            try await inner.next()
                            inner.cancelAll()
                        }
                        return (check.name, "ok")
                    } catch is ReadinessTimeout {
                        return (check.name, "timed out")
                    } catch {
                        return (check.name, "\(error)")
                    }
                }
            }
            var results: [String: String] = [:]
            for await (name, result) in group { results[name] = result }
            return results
        }
    }

    /// `not_ready` when a required check failed, or an upstream did (with `anyUpstream`, when
    /// every upstream did: the process reaches none of them); `degraded` when only checks it rides
    /// out (or, with `anyUpstream`, some upstreams) failed; `ready` when none did.
    static func status(of checks: [ReadinessCheck], results: [String: String], anyUpstream: Bool) -> String {
        let failing = checks.filter { results[$0.name] != "ok" }
        if failing.isEmpty { return "ready" }
        let upstreams = checks.filter { $0.effect == .upstream }
        let blocking = failing.contains {
            switch $0.effect {
            case .required: true
            case .upstream: !anyUpstream || upstreams.allSatisfy { results[$0.name] != "ok" }
            case .riddenOut: false
            }
        }
        return blocking ? "not_ready" : "degraded"
    }

    /// Runs `checks` and records each as `orderly_dependency_up{dependency}` (1 or 0), before each
    /// scrape: what alerts on a dependency the process rides out, which `/readyz` does not fail.
    static func recordDependencies(_ checks: [ReadinessCheck]) async {
        for (name, result) in await run(checks) {
            Gauge(label: "orderly_dependency_up", dimensions: [("dependency", name)]).record(result == "ok" ? 1 : 0)
        }
    }

    private struct ReadinessTimeout: Error {}

    private static func json(_ status: HTTPResponse.Status, _ object: [String: any Sendable]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
