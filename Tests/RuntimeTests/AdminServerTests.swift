import Domain
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import Synchronization
import Testing

@testable import Runtime

@Suite("Admin HTTP")
struct AdminServerTests {
    struct Down: Error, CustomStringConvertible {
        var description: String { "redis: connection refused" }
    }

    private func app(_ checks: [ReadinessCheck]) -> some ApplicationProtocol {
        Application(
            router: AdminServer(host: "127.0.0.1", port: 0, checks: checks, logger: Logger(label: "t")).makeRouter())
    }

    @Test("/healthz answers 200 while the process runs")
    func health() async throws {
        try await app([]).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
            }
        }
    }

    @Test("/readyz is 200 when every check passes and 503 naming the one the process cannot serve without")
    func readiness() async throws {
        try await app([ReadinessCheck("database") {}]).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        try await app([ReadinessCheck("database") { throw Down() }, ReadinessCheck("redis", .riddenOut) {}]).test(
            .router
        ) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                let checks = object?["checks"] as? [String: String]
                #expect(checks == ["database": "redis: connection refused", "redis": "ok"])
                #expect(object?["status"] as? String == "not_ready")
            }
        }
    }

    @Test("Redis down leaves the process ready and says it is degraded: it rides Redis out")
    func redisIsRiddenOut() async throws {
        try await app([ReadinessCheck("database") {}, ReadinessCheck("redis", .riddenOut) { throw Down() }]).test(
            .router
        ) { client in
            for uri in ["/readyz", "/readyz?upstreams=false", "/readyz?upstreams=any"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    #expect(object?["status"] as? String == "degraded")
                    #expect(
                        object?["checks"] as? [String: String] == [
                            "database": "ok", "redis": "redis: connection refused",
                        ])
                }
            }
        }
    }

    @Test("/readyz?upstreams=false leaves the other services out, and only them")
    func readinessWithoutUpstreams() async throws {
        let checks = [
            ReadinessCheck("database") {}, ReadinessCheck("catalog", .upstream) { throw Down() },
        ]
        try await app(checks).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
            try await client.execute(uri: "/readyz?upstreams=false", method: .get) { response in
                #expect(response.status == .ok)
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(object?["checks"] as? [String: String] == ["database": "ok"])
            }
        }
        try await app([ReadinessCheck("database") { throw Down() }]).test(.router) { client in
            try await client.execute(uri: "/readyz?upstreams=false", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }

    @Test("/readyz?upstreams=any (the gateway's) is ready while any upstream answers, not when none does")
    func readinessWithAnyUpstream() async throws {
        let oneDown = [
            ReadinessCheck("database") {}, ReadinessCheck("orders", .upstream) { throw Down() },
            ReadinessCheck("catalog", .upstream) {},
        ]
        try await app(oneDown).test(.router) { client in
            try await client.execute(uri: "/readyz?upstreams=any", method: .get) { response in
                #expect(response.status == .ok)
                let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(object?["status"] as? String == "degraded")
            }
        }
        let allDown = [
            ReadinessCheck("database") {}, ReadinessCheck("orders", .upstream) { throw Down() },
            ReadinessCheck("catalog", .upstream) { throw Down() },
        ]
        try await app(allDown).test(.router) { client in
            try await client.execute(uri: "/readyz?upstreams=any", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
    }

    @Test("the release and revision are exported as orderly_build_info, and --version prints them")
    func buildInfo() async throws {
        MetricsExporter.bootstrap()
        BuildInfo.record()
        let text = await MetricsExporter.exposition()
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("orderly_build_info{") })
        #expect(
            line.contains(#"version="\#(BuildInfo.version)""#) && Double(line.split(separator: " ").last ?? "") == 1)
        #expect(!BuildInfo.revision.isEmpty)
        #expect(
            BuildInfo.line("orderly-orders") == "orderly-orders \(BuildInfo.version) (revision \(BuildInfo.revision))")
    }

    @Test("each own check is recorded as orderly_dependency_up, 1 or 0, for the alert on Redis")
    func dependencyGauge() async throws {
        MetricsExporter.bootstrap()
        await AdminServer.recordDependencies([
            ReadinessCheck("database") {}, ReadinessCheck("redis", .riddenOut) { throw Down() },
        ])
        let text = await MetricsExporter.exposition()
        #expect(text.contains(#"orderly_dependency_up{dependency="database"} 1"#))
        #expect(text.contains(#"orderly_dependency_up{dependency="redis"} 0"#))
    }

    @Test("a check that hangs is reported as timed out within a few seconds")
    func hangingCheck() async throws {
        try await app([ReadinessCheck("upstream") { try await Task.sleep(for: .seconds(30)) }]).test(.router) {
            client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("timed out"))
            }
        }
    }

    @Test("/metrics serves the registry in the Prometheus text format")
    func metrics() async throws {
        MetricsExporter.bootstrap()
        let events = MetricNameDescriptor(
            namespace: "orderly", subsystem: "test", metricName: "events", unitName: "total", helpText: "for this test")
        MetricsExporter.registry.makeCounter(descriptor: events, labels: [("kind", "x")]).increment(by: Int64(3))
        try await app([]).test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                #expect(String(buffer: response.body).contains(#"orderly_test_events_total{kind="x"} 3"#))
            }
        }
    }
}

@Suite("Log lines")
struct LogLineTests {
    @Test("a JSON log line is one valid object with level, service, message and metadata")
    func jsonLine() throws {
        let lines = Mutex<[String]>([])
        var handler = JSONLinesLogHandler(label: "orderly.orders", service: "orders") { line in
            lines.withLock { $0.append(line) }
        }
        handler[metadataKey: "rpc.method"] = "orders.create"
        handler.logLevel = .info
        let logger = Logger(label: "orderly.orders") { _ in handler }
        logger.debug("not at this level")
        logger.info("created \"order\"\nnext", metadata: ["order.id": "42"])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["level"] == "info")
        #expect(object?["service"] == "orders")
        #expect(object?["msg"] == "created \"order\"\nnext")
        #expect(object?["rpc.method"] == "orders.create")
        #expect(object?["order.id"] == "42")
        #expect(object?["ts"] != nil)
    }

    @Test("a plain log line has the time, level, logger, every metadata key in order and the message")
    func plainLine() throws {
        let lines = Mutex<[String]>([])
        var handler = PlainLogHandler(label: "orderly.orders") { line in lines.withLock { $0.append(line) } }
        handler[metadataKey: "rpc.method"] = "orders.create"
        handler[metadataKey: "event.id"] = "e1"
        handler.logLevel = .info
        let logger = Logger(label: "orderly.orders") { _ in handler }
        logger.debug("not at this level")
        logger.warning("stuck", metadata: ["order.id": "42", "rpc.method": "orders.update"])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        let parts = line.split(separator: " ", maxSplits: 1)
        #expect(RFC3339.parse(String(parts[0])) != nil)
        #expect(parts[1] == "warning orderly.orders: event.id=e1 order.id=42 rpc.method=orders.update stuck\n")
    }

    @Test("a plain log line keeps what a client sent on its own line: control characters are escaped")
    func plainLineInjection() throws {
        let lines = Mutex<[String]>([])
        let handler = PlainLogHandler(label: "orderly.wire") { line in lines.withLock { $0.append(line) } }
        let logger = Logger(label: "orderly.wire") { _ in handler }
        logger.warning(
            "hello refused\r\n2026-11-27T00:00:00.000Z notice forged",
            metadata: ["wire.refusal": "x\nnotice \u{1b}[2Jforged"])
        let line = try #require(lines.withLock { $0 }.first)
        #expect(line.filter { $0 == "\n" || $0 == "\r" || $0 == "\u{1b}" }.count == 1)
        #expect(
            line.hasSuffix(
                #" wire.refusal=x\nnotice \u{1b}[2Jforged hello refused\r\n2026-11-27T00:00:00.000Z notice forged"#
                    + "\n"))
    }
}
