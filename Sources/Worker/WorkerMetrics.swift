import CoreMetrics
import ReceiptQueue

/// The worker's metrics through swift-metrics (the executable chooses the backend: Prometheus,
/// with the help texts and buckets of `WorkerMetrics.catalog`). Every name is
/// `receiptq_worker_<what>_<unit>`; names are a contract with the Grafana dashboard and the
/// alert rules in Deploy/.
public struct WorkerMetrics: Sendable {
    /// Finished attempts by outcome: granted, already_granted, rejected, failed, resubmit, retry,
    /// timed_out, released, lost_lease.
    let outcomes: @Sendable (String) -> Counter
    /// Time from request to Apple's answer, all calls of one verification (seconds histogram).
    let appleLatency: Timer
    /// HTTP calls made to Apple, by environment.
    let appleRequests: @Sendable (String) -> Counter
    /// Calls to Apple that failed TLS verification (a CA bundle or clock problem on our side), by environment.
    let appleTLSFailures: @Sendable (String) -> Counter
    /// Verifications in flight now.
    public let inFlight: Gauge
    /// Circuit breaker per Apple environment and state: 1 for the state it is in, 0 for the others.
    let breaker: @Sendable (_ environment: String, _ state: String) -> Gauge
    /// Jobs per claim statement.
    let claimBatch: Recorder
    /// Attempts per outcome transaction, and its duration.
    let writeBatch: Recorder
    let writeSeconds: Timer
    /// Grants recorded without a matching order.
    let unmatchedGrants: Counter
    /// Outage notices of other workers: heard, or ignored (not sent by a receiptq_worker login).
    let outageNotices: @Sendable (String) -> Counter
    /// Second requests for stragglers (`HedgePolicy`).
    let hedges: Counter
    /// Receipts verified on this machine before Apple: rejected (no call), verified, unconfirmed.
    let localReceiptChecks: @Sendable (String) -> Counter
    /// Transaction History pages imported by history syncs.
    let historyPages: Counter
    /// Subscription fields a history sync or status check corrected, by source.
    let subscriptionCorrections: @Sendable (String) -> Counter

    public init() {
        outcomes = { Counter(label: Self.verifications, dimensions: [("outcome", $0)]) }
        appleLatency = Timer(label: Self.appleRequestDuration, preferredDisplayUnit: .seconds)
        appleRequests = { Counter(label: Self.appleRequestsTotal, dimensions: [("environment", $0)]) }
        appleTLSFailures = { Counter(label: Self.appleTLSFailuresTotal, dimensions: [("environment", $0)]) }
        inFlight = Gauge(label: Self.inFlightName)
        breaker = { Gauge(label: Self.breakerState, dimensions: [("environment", $0), ("state", $1)]) }
        claimBatch = Recorder(label: Self.claimBatchJobs, aggregate: true)
        writeBatch = Recorder(label: Self.writeBatchAttempts, aggregate: true)
        writeSeconds = Timer(label: Self.writeDuration, preferredDisplayUnit: .seconds)
        unmatchedGrants = Counter(label: Self.unmatchedGrantsTotal)
        outageNotices = { Counter(label: Self.outageNoticesTotal, dimensions: [("result", $0)]) }
        hedges = Counter(label: Self.hedgesTotal)
        localReceiptChecks = { Counter(label: Self.localReceiptChecksTotal, dimensions: [("result", $0)]) }
        historyPages = Counter(label: Self.historyPagesTotal)
        subscriptionCorrections = { Counter(label: Self.subscriptionCorrectionsTotal, dimensions: [("source", $0)]) }
    }

    /// The verifyReceipt breaker of `environment` is now in `phase` (a `state` label per phase,
    /// as Prometheus wants instead of an enum's number).
    func breakerMoved(environment: String, to phase: CircuitBreaker<ContinuousClock.Instant>.Phase) {
        for state in CircuitBreaker<ContinuousClock.Instant>.Phase.allCases {
            breaker(environment, state.metricLabel).record(state == phase ? 1 : 0)
        }
    }

    /// The App Store Server API lookups' breaker is now in `phase`.
    static func serverAPIBreakerMoved(to phase: CircuitBreaker<ContinuousClock.Instant>.Phase) {
        for state in CircuitBreaker<ContinuousClock.Instant>.Phase.allCases {
            Gauge(label: serverAPIBreakerState, dimensions: [("state", state.metricLabel)]).record(state == phase ? 1 : 0)
        }
    }

    /// One App Store Server Notification's attempt ended: `outcome` applied, unchanged (its
    /// lease was lost), failed (kept, re-drivable) or retry; with its lag from Apple's
    /// `signedDate` when applied.
    static func notificationFinished(type: String, outcome: String, lag: Double? = nil) {
        Counter(label: notificationsTotal, dimensions: [("type", boundedNotificationType(type)), ("outcome", outcome)]).increment()
        if let lag { Timer(label: notificationLag, preferredDisplayUnit: .seconds).recordNanoseconds(Int64(max(0, lag) * 1e9)) }
    }

    /// Apple's notification types are upper-case words joined by `_`; anything else (never seen
    /// from Apple) is counted as `OTHER`, so the label set stays bounded.
    static func boundedNotificationType(_ type: String) -> String {
        (1...48).contains(type.utf8.count) && type.utf8.allSatisfy({ (65...90).contains($0) || $0 == 95 }) ? type : "OTHER"
    }

    /// One consumption request ended an attempt: sent, no_consent, failed or retry.
    static func consumptionAnswered(_ result: String) {
        Counter(label: consumptionAnswersTotal, dimensions: [("result", result)]).increment()
    }

    func recordWritten(_ result: RecordOutcomes.Result, batchSize: Int, seconds: Double) {
        for outcome in result.outcomes.values { outcomes(outcome.metricName).increment() }
        if !result.lostLease.isEmpty { outcomes("lost_lease").increment(by: result.lostLease.count) }
        if result.unmatchedGrants > 0 { unmatchedGrants.increment(by: result.unmatchedGrants) }
        writeBatch.record(batchSize)
        writeSeconds.recordNanoseconds(Int64(seconds * 1e9))
    }

    static let verifications = "receiptq_worker_verifications_total"
    static let appleRequestDuration = "receiptq_worker_apple_request_duration_seconds"
    static let appleRequestsTotal = "receiptq_worker_apple_requests_total"
    static let appleTLSFailuresTotal = "receiptq_worker_apple_tls_failures_total"
    static let inFlightName = "receiptq_worker_verifications_in_flight"
    static let breakerState = "receiptq_worker_breaker_state"
    static let claimBatchJobs = "receiptq_worker_claim_batch_jobs"
    static let writeBatchAttempts = "receiptq_worker_write_batch_attempts"
    static let writeDuration = "receiptq_worker_write_duration_seconds"
    static let unmatchedGrantsTotal = "receiptq_worker_unmatched_grants_total"
    static let outageNoticesTotal = "receiptq_worker_outage_notices_total"
    static let hedgesTotal = "receiptq_worker_apple_hedges_total"
    static let localReceiptChecksTotal = "receiptq_worker_local_receipt_checks_total"
    static let serverAPIBreakerState = "receiptq_worker_server_api_breaker_state"
    static let notificationsTotal = "receiptq_worker_notifications_total"
    static let notificationLag = "receiptq_worker_notification_lag_seconds"
    static let consumptionAnswersTotal = "receiptq_worker_consumption_answers_total"
    static let notificationsRecoveredTotal = "receiptq_notifications_recovered_total"
    static let historyPagesTotal = "receiptq_worker_history_pages_total"
    static let subscriptionCorrectionsTotal = "receiptq_worker_subscription_corrections_total"
}

extension JobOutcome {
    var metricName: String {
        switch self {
        case .granted: "granted"
        case .alreadyGranted: "already_granted"
        case .rejected: "rejected"
        case .failed: "failed"
        case .resubmit: "resubmit"
        case .ownedElsewhere: "owned_elsewhere"
        case .retry, .doubted: "retry"
        case .timedOut: "timed_out"
        case .release: "released"
        }
    }
}
