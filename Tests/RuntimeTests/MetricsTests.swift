import Foundation
import Metrics
import Synchronization
import Testing

@testable import Runtime

@Suite("Metrics")
struct MetricsTests {
    @Test("every metric described has a Prometheus name, its help and, for a histogram, its buckets")
    func descriptions() {
        for (name, metric) in MetricDescription.all {
            #expect(name.range(of: #"^[a-z_][a-z0-9_]*$"#, options: .regularExpression) != nil, "\(name)")
            #expect(!metric.help.isEmpty, "\(name)")
            switch metric.kind {
            case .counter: #expect(name.hasSuffix("_total"), "\(name)")
            case .histogram: #expect(name.hasSuffix("_seconds") && !metric.buckets.isEmpty, "\(name)")
            case .gauge: #expect(!name.hasSuffix("_total"), "\(name)")
            }
        }
    }

    @Test("docs/OPERATIONS.md lists every metric, and no other")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/OPERATIONS.md"), encoding: .utf8)
        // The metrics table's rows start with the name in backticks.
        let listed = Set(
            text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
                let name = String(line[line.index(line.startIndex, offsetBy: 3)..<end])
                return name.range(of: #"^(http|process|orderly)_[a-z0-9_]+$"#, options: .regularExpression) != nil
                    ? name : nil
            })
        #expect(listed == Set(MetricDescription.all.keys))
    }

    @Test("a scrape stops waiting for a collector that hangs once its limit is up", .timeLimit(.minutes(1)))
    func boundedCollector() async {
        final class Held: Sendable {
            let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
            let finished = Mutex(false)
        }
        let held = Held()
        await MetricsExporter.bounded(
            {
                await withCheckedContinuation { continuation in held.continuation.withLock { $0 = continuation } }
                held.finished.withLock { $0 = true }
            }, within: .milliseconds(200))
        // Returned with the collector still hung (waiting for it would never have returned).
        #expect(held.finished.withLock { !$0 })
        // The hung collector, let go.
        while held.continuation.withLock({ $0 == nil }) { await Task.yield() }
        held.continuation.withLock { $0?.resume() }
    }

    @Test("the process's figures come from /proc/self/stat, a command with spaces and parentheses included")
    func processStat() async throws {
        let line =
            "4242 (orderly (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 9 0 123456 987654321 2048 "
            + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0"
        let stat = try #require(ProcessMetrics.stat(line))
        #expect(stat.userTicks == 250 && stat.systemTicks == 50)
        #expect(stat.startTicks == 123456 && stat.virtualBytes == 987654321 && stat.residentPages == 2048)
        #expect(ProcessMetrics.stat("not a stat line") == nil)

        MetricsExporter.bootstrap()
        let text = await MetricsExporter.exposition()
        for name in [
            "process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds",
            "process_start_time_seconds",
        ] {
            let value = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
            #expect((value ?? 0) > 0, "\(name) in \(text.prefix(2000))")
        }
        #expect(text.contains("# HELP process_open_fds Open file descriptors"))
    }
}

@Suite("Tracing's switch")
struct TracingSetupTests {
    @Test("traces are on only when the standard variables ask for them, and OTEL_SDK_DISABLED wins")
    func requested() {
        #expect(!TracingSetup.isRequested([:]))
        #expect(TracingSetup.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]))
        #expect(TracingSetup.isRequested(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"]))
        #expect(TracingSetup.isRequested(["OTEL_TRACES_EXPORTER": "otlp"]))
        #expect(
            !TracingSetup.isRequested(["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]))
        #expect(!TracingSetup.isRequested(["OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"]))
        #expect(!TracingSetup.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": ""]))
    }
}
