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

    @Test("a 404 and a 429 are counted and timed as 404 and 429, not 500")
    func statusesAsAnswered() async throws {
        MetricsExporter.bootstrap()
        let notFound = #"route="unmatched",method="GET",status="404""#
        let limited = #"route="/v1/auth/login",method="POST",status="429""#
        let before = (
            await Self.sample("http_server_requests_total", notFound),
            await Self.sample("http_server_request_duration_seconds_count", notFound),
            await Self.sample("http_server_requests_total", limited)
        )
        try await InProcessSuite.with(
            settings: ["http.anonymousRequestsPerSecond": "1", "http.anonymousBurst": "2"]
        ) { suite in
            // Not in the document, so not sent through `api`, which checks every answer against it.
            let missing = try await suite.request("GET", "/v1/no-such-thing", headers: [:], body: nil)
            #expect(missing.status == 404, "\(missing.text)")
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
