import Foundation
import Runtime
import TestSupport
import Testing

/// The gateway's HTTP metrics count each request by the status it was answered with, errors
/// included, and time it.
@Suite("HTTP metrics")
struct HTTPMetricsTests {
    let api: API

    init() throws { api = try API() }

    /// The value of the sample `name{labels}` in the process's exposition, 0 when absent.
    static func sample(_ name: String, _ labels: String) async -> Double {
        let line = await MetricsExporter.exposition().split(separator: "\n").first {
            $0.hasPrefix("\(name){\(labels)} ")
        }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// The requests counted under `method="other"`, whatever their route and status.
    static func others() async -> Double {
        await MetricsExporter.exposition().split(separator: "\n").filter {
            $0.hasPrefix("http_server_requests_total{") && $0.contains(#"method="other""#)
        }.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    @Test("a 404 and a 429 are counted and timed as 404 and 429, not 500; a method of a stranger's own as other")
    func statusesAsAnswered() async throws {
        MetricsExporter.bootstrap()
        let notFound = #"route="unmatched",method="GET",status="404""#
        let limited = #"route="/v1/auth/login",method="POST",status="429""#
        let before = (
            await Self.sample("http_server_requests_total", notFound),
            await Self.sample("http_server_request_duration_seconds_count", notFound),
            await Self.sample("http_server_requests_total", limited),
            await Self.others()
        )
        try await InProcessSuite.with(
            settings: ["http.anonymousRequestsPerSecond": "1", "http.anonymousBurst": "2"]
        ) { suite in
            // Not in the document, so not sent through `api`, which checks every answer against it.
            let missing = try await suite.request("GET", "/v1/no-such-thing", headers: [:], body: nil)
            #expect(missing.status == 404, "\(missing.text)")
            // A method of a stranger's own is one label, however many there are.
            for method in ["BREW", "WHEN"] { _ = try await suite.request(method, "/v1/me", headers: [:], body: nil) }
            let methods = await MetricsExporter.exposition().split(separator: "\n").filter {
                $0.hasPrefix("http_server_requests_total{") && ($0.contains("BREW") || $0.contains("WHEN"))
            }
            #expect(methods.isEmpty, "\(methods)")
            #expect(await Self.others() >= before.3 + 2)
            // At once, so that the bucket (2, then 1 a second) cannot refill between them.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await api.send(
                            suite, "POST", "/v1/auth/login",
                            json: ["email": "nobody@example.com", "password": "wrong-one-1"]
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.contains(429), "\(statuses)")
            #expect(await Self.sample("http_server_requests_total", notFound) >= before.0 + 1)
            #expect(await Self.sample("http_server_request_duration_seconds_count", notFound) >= before.1 + 1)
            #expect(
                await Self.sample("http_server_requests_total", limited)
                    >= before.2 + Double(statuses.count { $0 == 429 }))
            let text = await MetricsExporter.exposition()
            #expect(!text.contains(#"status="500""#), "nothing here failed")
        }
    }
}
