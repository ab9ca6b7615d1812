import CoreMetrics
import ReceiptQueue

/// The worker's metrics through swift-metrics (the executable chooses the backend: Prometheus).
/// Names are a contract with the Grafana dashboard.
public struct WorkerMetrics: Sendable {
    /// Finished attempts by outcome: granted, already_granted, rejected, failed, resubmit, retry,
    /// timed_out, released, lost_lease.
    let outcomes: @Sendable (String) -> Counter
    /// Time from request to Apple's answer, all calls of one verification (seconds histogram).
    let appleLatency: Timer
    /// HTTP calls made to Apple, by environment.
    let appleRequests: @Sendable (String) -> Counter
    /// Verifications in flight now.
    public let inFlight: Gauge
    /// Circuit breaker state per environment: 0 closed, 1 half-open, 2 open.
    let breaker: @Sendable (String) -> Gauge
    /// Jobs per claim statement.
    let claimBatch: Recorder
    /// Attempts per outcome transaction, and its duration.
    let writeBatch: Recorder
    let writeSeconds: Timer
    /// Grants recorded without a matching order.
    let unmatchedGrants: Counter

    public init() {
        outcomes = { Counter(label: "receiptq_verifications_total", dimensions: [("outcome", $0)]) }
        appleLatency = Timer(label: "receiptq_apple_latency_seconds", preferredDisplayUnit: .seconds)
        appleRequests = { Counter(label: "receiptq_apple_requests_total", dimensions: [("environment", $0)]) }
        inFlight = Gauge(label: "receiptq_in_flight")
        breaker = { Gauge(label: "receiptq_breaker_state", dimensions: [("environment", $0)]) }
        claimBatch = Recorder(label: "receiptq_claim_batch_size", aggregate: true)
        writeBatch = Recorder(label: "receiptq_write_batch_size", aggregate: true)
        writeSeconds = Timer(label: "receiptq_write_seconds", preferredDisplayUnit: .seconds)
        unmatchedGrants = Counter(label: "receiptq_unmatched_grants_total")
    }

    func recordWritten(_ result: RecordOutcomes.Result, batchSize: Int, seconds: Double) {
        for outcome in result.outcomes.values { outcomes(outcome.metricName).increment() }
        if !result.lostLease.isEmpty { outcomes("lost_lease").increment(by: result.lostLease.count) }
        if result.unmatchedGrants > 0 { unmatchedGrants.increment(by: result.unmatchedGrants) }
        writeBatch.record(batchSize)
        writeSeconds.recordNanoseconds(Int64(seconds * 1e9))
    }
}

extension JobOutcome {
    var metricName: String {
        switch self {
        case .granted: "granted"
        case .alreadyGranted: "already_granted"
        case .rejected: "rejected"
        case .failed: "failed"
        case .resubmit: "resubmit"
        case .retry: "retry"
        case .timedOut: "timed_out"
        case .release: "released"
        }
    }
}
