import CoreMetrics

/// What every App Store Server API call reports through swift-metrics (the executable picks the
/// backend; `WorkerMetrics.help` names each metric's meaning and buckets for Prometheus). Labels
/// are bounded: `endpoint` is one of `ServerAPIEndpoint`, `status` Apple's HTTP status or
/// `timeout` / `network` when no answer came.
public enum ServerAPIMetrics {
    public static let requestsTotal = "receiptq_server_api_requests_total"
    public static let requestDuration = "receiptq_server_api_request_duration_seconds"
    public static let permitsTotal = "receiptq_server_api_rate_budget_permits_total"
    public static let pausesTotal = "receiptq_server_api_rate_budget_pauses_total"

    /// One call answered (`status`: the HTTP status) or not (`timeout`, `network`), and how long it took.
    static func called(_ endpoint: ServerAPIEndpoint, status: String, duration: Duration) {
        Counter(label: requestsTotal, dimensions: [("endpoint", endpoint.rawValue), ("status", status)]).increment()
        Timer(label: requestDuration, dimensions: [("endpoint", endpoint.rawValue)], preferredDisplayUnit: .seconds)
            .recordNanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// The rate budget let one call go (`ServerAPIRequestGate.permit` returned).
    static func permitted(_ endpoint: ServerAPIEndpoint) {
        Counter(label: permitsTotal, dimensions: [("endpoint", endpoint.rawValue)]).increment()
    }

    /// Apple answered 429 and the endpoint's budget is paused for the fleet.
    static func paused(_ endpoint: ServerAPIEndpoint) {
        Counter(label: pausesTotal, dimensions: [("endpoint", endpoint.rawValue)]).increment()
    }
}
