import AppStoreServerAPI

/// What each worker (and scheduler: Server API, recovery) metric means and, for histograms, its buckets: the Prometheus backend reads
/// them (`# HELP` on every metric; swift-metrics itself carries neither). One entry per name in
/// `WorkerMetrics`; `WorkerMetricsCatalogTests` checks that none is missing.
extension WorkerMetrics {
    public static let help: [String: String] = [
        verifications: "Finished verification attempts by outcome (granted, already_granted, owned_elsewhere — a submission of another account's purchase, rejected, failed, resubmit, retry, timed_out, released, lost_lease).",
        appleRequestDuration: "Time from sending a receipt to Apple's answer, all calls of one verification together, in seconds.",
        appleRequestsTotal: "HTTP calls made to Apple's verifyReceipt, by environment.",
        appleTLSFailuresTotal: "Calls to Apple refused by TLS verification, by environment: a CA bundle or clock problem on our side, not an Apple outage.",
        inFlightName: "Verifications in flight now (jobs leased by this worker and not yet written).",
        breakerState: "verifyReceipt circuit breaker per Apple environment and state (closed, half_open, open): 1 for the state it is in, 0 for the others.",
        serverAPIBreakerState: "App Store Server API lookups' circuit breaker by state (closed, half_open, open): 1 for the state it is in, 0 for the others.",
        ServerAPIMetrics.requestsTotal: "App Store Server API calls by endpoint and status: Apple's HTTP status, or timeout / network when no answer came.",
        ServerAPIMetrics.requestDuration: "Time from sending an App Store Server API call to its answer (or timeout), by endpoint, in seconds.",
        ServerAPIMetrics.permitsTotal: "App Store Server API calls the fleet's rate budget let go, by endpoint (tokens taken).",
        ServerAPIMetrics.pausesTotal: "429 answers that paused an endpoint's budget for the whole fleet until Apple's Retry-After, by endpoint.",
        notificationsTotal: "App Store Server Notification attempts by Apple's type and outcome: applied, unchanged (lease lost), failed (kept, re-drivable) or retry.",
        notificationLag: "Time from Apple signing a notification (signedDate) to this worker applying it, in seconds.",
        consumptionAnswersTotal: "Consumption requests answered to Apple, by result: sent, no_consent (not sent: the customer did not consent), failed or retry.",
        notificationsRecoveredTotal: "Notifications Get Notification History returned that we had never received (recovered), by environment.",
        claimBatchJobs: "Jobs per claim statement.",
        writeBatchAttempts: "Finished attempts per outcome transaction.",
        writeDuration: "Duration of one outcome transaction (grants, job ends, events), in seconds.",
        unmatchedGrantsTotal: "Grants recorded without a matching order (paid and granted; for ops to reconcile).",
        outageNoticesTotal: "Other workers' Apple outage notices: heard, or ignored because the sender is not a receiptq_worker login.",
        localReceiptChecksTotal: "Receipts verified on this machine before Apple: rejected (provably not Apple's for our apps; Apple not asked), verified, or unconfirmed (Apple asked).",
        webhookDeliveriesTotal: "Webhook delivery attempts by endpoint (its configured id) and result (delivered, retry, failed, released).",
        historyPagesTotal: "Transaction History v2 pages imported by history syncs (each one request of the fleet's rate budget).",
        subscriptionCorrectionsTotal: "Subscription fields a history sync or status check found different from what notifications had said, by source (history, status_check): each one corrected.",
        hedgesTotal: "Second requests sent to Apple: for verifications unanswered past the recent p99 (at most 2% of requests), and for retries sent as two requests at once (a job's third to sixth try; its second once the backlog is drained).",
    ]

    /// Histogram buckets in the metric's unit. Apple's latency reaches past the longest
    /// `--apple-timeout` anyone runs (60 s), so a slow Apple shows as slow, not as +Inf.
    public static let buckets: [String: [Double]] = [
        appleRequestDuration: [0.1, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 8, 10, 12.5, 15, 20, 30, 45, 60],
        ServerAPIMetrics.requestDuration: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 60],
        notificationLag: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400, 259_200],
        writeDuration: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        claimBatchJobs: [1, 5, 10, 20, 50, 100, 200, 500, 1000],
        writeBatchAttempts: [1, 5, 10, 20, 50, 100, 200, 500, 1000],
    ]

    static let webhookDeliveriesTotal = "receiptq_worker_webhook_deliveries_total"
}
