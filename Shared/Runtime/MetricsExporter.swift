import Foundation
import Metrics
public import Prometheus
import Synchronization

/// The process's metrics registry and its Prometheus text exposition.
public enum MetricsExporter {
    /// The registry every metric of this process lands in.
    public static let registry = PrometheusCollectorRegistry()

    /// What runs before each scrape to bring gauges up to date (the event pipeline's, read from
    /// Redis and the database), each bounded by `collectTimeout`.
    private static let collectors = Mutex<[@Sendable () async -> Void]>([])
    static let collectTimeout = Duration.seconds(2)

    /// Routes swift-metrics into `registry`, with the help texts and buckets of
    /// `MetricDescription`, once whoever calls it: executables at start, tests that read metrics.
    public static func bootstrap() { _ = bootstrapped }

    private static let bootstrapped: Void = MetricsSystem.bootstrap(OrderlyMetricsFactory(registry: registry))

    /// Waits for `collector` at most `limit`: one that takes longer is cancelled and left to
    /// finish on its own (a task group would wait for it however long it hangs).
    static func bounded(_ collector: @escaping @Sendable () async -> Void, within limit: Duration) async {
        let once = Once()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let work = Task {
                await collector()
                if once.claim() { continuation.resume() }
            }
            Task {
                try? await Task.sleep(for: limit)
                if once.claim() {
                    work.cancel()
                    continuation.resume()
                }
            }
        }
    }

    /// True for the first caller only.
    private final class Once: Sendable {
        private let done = Mutex(false)

        func claim() -> Bool {
            done.withLock { done in
                defer { done = true }
                return !done
            }
        }
    }

    /// Runs `collector` before each scrape from now on.
    public static func collect(_ collector: @escaping @Sendable () async -> Void) {
        collectors.withLock { $0.append(collector) }
    }

    /// The current values in the Prometheus text format (`/metrics`), after the collectors ran
    /// (one that takes too long leaves its gauges as they were) and the process's own figures
    /// were read from `/proc`.
    public static func exposition() async -> String {
        let pending = collectors.withLock { $0 }
        await withTaskGroup(of: Void.self) { group in
            for collector in pending { group.addTask { await bounded(collector, within: collectTimeout) } }
        }
        ProcessMetrics.shared.update()
        return registry.emitToString()
    }
}
