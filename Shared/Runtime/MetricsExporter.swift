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
            for collector in pending {
                group.addTask {
                    await withTaskGroup(of: Void.self) { race in
                        race.addTask { await collector() }
                        race.addTask { try? await Task.sleep(for: collectTimeout) }
                        await race.next()
                        race.cancelAll()
                    }
                }
            }
        }
        ProcessMetrics.shared.update()
        return registry.emitToString()
    }
}
