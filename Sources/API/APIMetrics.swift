import Prometheus

/// The API's Prometheus metrics, served at GET /metrics.
final class APIMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let accepted: Counter
    private let duplicates: Counter
    private let batches: Counter
    private let batchedJobs: Counter
    private let longPolls: Gauge

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        let receipts = APIMetrics.name("receipts", "total", "Receipt submissions by result.")
        accepted = registry.makeCounter(descriptor: receipts, labels: [("result", "accepted")])
        duplicates = registry.makeCounter(descriptor: receipts, labels: [("result", "duplicate")])
        batches = registry.makeCounter(descriptor: APIMetrics.name("enqueue_commits", "total", "Enqueue statements committed (group commits)."))
        batchedJobs = registry.makeCounter(descriptor: APIMetrics.name("enqueue_jobs", "total", "Jobs in those statements; divided by commits: the mean batch."))
        longPolls = registry.makeGauge(descriptor: APIMetrics.name("long_polls", "", "GET /v1/receipts/{id}?wait= requests waiting now."))
    }

    func submitted(created: Bool) {
        if created { accepted.increment() } else { duplicates.increment() }
    }

    func committedBatch(size: Int) {
        batches.increment()
        batchedJobs.increment(by: Int64(size))
    }

    func longPoll(started: Bool) {
        if started { longPolls.increment() } else { longPolls.decrement() }
    }

    func responded(status: Int) {
        registry.makeCounter(descriptor: APIMetrics.name("responses", "total", "HTTP responses by status."),
                             labels: [("status", String(status))]).increment()
    }

    /// `receiptq_api_<metric>_<unit>`.
    static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "receiptq_api", metricName: metric, unitName: unit, helpText: help)
    }

    /// The text exposition format.
    func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
