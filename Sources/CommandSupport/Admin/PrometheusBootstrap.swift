import Metrics
import Metrics
import Prometheus

/// Routes swift-metrics into a Prometheus registry (once per process) with HELP text and
/// histogram buckets per metric name, which swift-metrics itself cannot carry: the worker's
/// metrics come through here with `WorkerMetrics.help` and `.buckets`.
public enum PrometheusBootstrap {
    /// Bootstraps the process's `MetricsSystem` and returns the registry the admin listener serves.
    public static func metricsSystem(help: [String: String], buckets: [String: [Double]]) -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(CatalogMetricsFactory(registry: registry, help: help, buckets: buckets))
        return registry
    }
}

/// A swift-metrics factory over a Prometheus registry that names every metric's meaning
/// (`# HELP`) and buckets from a catalog. A name missing from the catalog gets no HELP line, which
/// the catalog tests catch.
struct CatalogMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let help: [String: String]
    let buckets: [String: [Double]]

    static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: help[label] ?? "")
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions,
                                           buckets: buckets[label] ?? Self.defaultBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let seconds = buckets[label] ?? Self.defaultBuckets
        return registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions,
                                              buckets: seconds.map { .nanoseconds(Int64($0 * 1e9)) })
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
        if let histogram = handler as? ValueHistogram { registry.unregisterValueHistogram(histogram) }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
