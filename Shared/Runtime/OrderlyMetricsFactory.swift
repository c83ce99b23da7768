import Metrics
import Prometheus

/// swift-metrics into a Prometheus registry, with each metric's help text and buckets from
/// `MetricDescription.all` (a metric not described there is exported with its name as its help,
/// which the catalogue's test reports).
struct OrderlyMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry

    private func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: MetricDescription.all[name]?.help ?? name)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(
            descriptor: descriptor(label), labels: dimensions,
            buckets: MetricDescription.all[label]?.buckets ?? MetricDescription.requestBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let seconds = MetricDescription.all[label]?.buckets ?? MetricDescription.requestBuckets
        return registry.makeDurationHistogram(
            descriptor: descriptor(label), labels: dimensions,
            buckets: seconds.map { .nanoseconds(Int64(($0 * 1e9).rounded())) })
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
