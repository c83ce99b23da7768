import Foundation
public import Hummingbird
public import Logging
public import NIOCore
public import ServiceLifecycle

/// One thing `/readyz` checks: a database, Redis, an upstream service.
public struct ReadinessCheck: Sendable {
    public var name: String
    /// Another Orderly service, which `/readyz?upstreams=false` leaves out.
    public var isUpstream: Bool
    /// Throws when the dependency is not usable.
    public var check: @Sendable () async throws -> Void

    public init(_ name: String, upstream: Bool = false, check: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.isUpstream = upstream
        self.check = check
    }
}

/// The operator's HTTP port of every process: `/healthz` (the process is alive), `/readyz`
/// (every readiness check passes; 503 with the failing ones otherwise) and `/metrics`
/// (Prometheus text format). `/readyz?upstreams=false` checks the process's own database and
/// Redis only: what a load balancer's readiness probe wants, so that one service down does not
/// take every service that calls it out of rotation too.
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
            let own = request.uri.queryParameters.get("upstreams") == "false"
            let results = await Self.run(own ? checks.filter { !$0.isUpstream } : checks)
            let ready = results.values.allSatisfy { $0 == "ok" }
            return Self.json(
                ready ? .ok : .serviceUnavailable,
                ["status": ready ? "ready" : "not_ready", "checks": results])
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

    private struct ReadinessTimeout: Error {}

    private static func json(_ status: HTTPResponse.Status, _ object: [String: any Sendable]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
