import Metrics
public import Prometheus

/// The process's metrics registry and its Prometheus text exposition.
public enum MetricsExporter {
    /// The registry every metric of this process lands in.
    public static let registry = PrometheusCollectorRegistry()

    /// Routes swift-metrics into `registry`. Executables call this once; libraries never do.
    public static func bootstrap() {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    }

    /// The current values in the Prometheus text format (`/metrics`).
    public static func exposition() -> String {
        registry.emitToString()
    }
}
