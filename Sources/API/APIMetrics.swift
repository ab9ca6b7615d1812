import Prometheus

/// The API's Prometheus metrics, served by the admin listener's GET /metrics. Every name is
/// `receiptq_api_<what>_<unit>` and has HELP; names are a contract with the Grafana dashboard
/// and the alert rules in Deploy/.
final class APIMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let accepted: Counter
    private let duplicates: Counter
    private let batches: Counter
    private let batchedJobs: Counter
    private let longPolls: Gauge
    private let longPollsAnsweredAtOnce: Counter
    private let authFailures: Counter
    private let authLimited: Counter

    /// Request durations up to the longest long-poll (30 s) and beyond.
    static let durationBuckets: [Duration] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
        .map { .nanoseconds(Int64($0 * 1e9)) }

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        let receipts = Self.descriptor("receiptq_api_receipts_total", "Receipt submissions by result: accepted (202, a new job) or duplicate (200).")
        accepted = registry.makeCounter(descriptor: receipts, labels: [("result", "accepted")])
        duplicates = registry.makeCounter(descriptor: receipts, labels: [("result", "duplicate")])
        batches = registry.makeCounter(descriptor: Self.descriptor("receiptq_api_enqueue_commits_total", "Enqueue statements committed (group commits)."))
        batchedJobs = registry.makeCounter(descriptor: Self.descriptor(
            "receiptq_api_enqueue_jobs_total", "Jobs in those statements; divided by commits: the mean batch."))
        longPolls = registry.makeGauge(descriptor: Self.descriptor(
            "receiptq_api_long_polls_waiting", "GET /v1/receipts/{id}?wait= requests waiting now."))
        longPollsAnsweredAtOnce = registry.makeCounter(descriptor: Self.descriptor(
            "receiptq_api_long_polls_capped_total", "Long-polls answered at once because a cap on waiting long-polls (per token or in all) was reached."))
        let failures = Self.descriptor("receiptq_api_auth_failures_total",
                                       "Requests refused for authentication: unauthorized (401), or limited (429: the address failed too often).")
        authFailures = registry.makeCounter(descriptor: failures, labels: [("result", "unauthorized")])
        authLimited = registry.makeCounter(descriptor: failures, labels: [("result", "limited")])
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

    /// One local receipt check (`--receipt-check local`): verified, refused (422, never stored) or
    /// unconfirmed (stored; the worker asks Apple).
    func receiptChecked(_ result: String) {
        registry.makeCounter(descriptor: Self.descriptor(
            "receiptq_api_receipt_checks_total",
            "Receipts checked on submission: verified, refused (422: provably not Apple's for our apps) or unconfirmed (stored; Apple decides)."),
                             labels: [("result", result)]).increment()
    }

    /// One App Store Server Notification received: stored, quarantined (Apple's, refused by this
    /// configuration: kept, to be re-driven — alert on it) or refused (422: a forgery).
    func notificationReceived(_ result: String) {
        registry.makeCounter(descriptor: Self.descriptor(
            "receiptq_api_notifications_total",
            "App Store Server Notifications received: stored, quarantined (Apple signed it, this configuration refused it: kept for a re-drive) or refused (422: not Apple's)."),
                             labels: [("result", result)]).increment()
    }

    func longPollCapped() { longPollsAnsweredAtOnce.increment() }

    func authFailed(limited: Bool) {
        if limited { authLimited.increment() } else { authFailures.increment() }
    }

    /// One response: counted and timed by route (the router's pattern, e.g.
    /// `/v1/receipts/{id}`, never the path a client sent; `unmatched` for an unknown path) and status. A long-poll's time includes
    /// its wait.
    func responded(route: String, status: Int, duration: Duration) {
        registry.makeCounter(descriptor: Self.descriptor("receiptq_api_responses_total",
                                                         "HTTP responses by route (the router's template; unmatched for any unknown path) and status."),
                             labels: [("route", route), ("status", String(status))]).increment()
        registry.makeDurationHistogram(
            descriptor: Self.descriptor("receiptq_api_request_duration_seconds",
                                        "Time from request to response by route and status, in seconds (long-polls include their wait)."),
            labels: [("route", route), ("status", String(status))], buckets: Self.durationBuckets
        ).record(duration)
    }

    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
