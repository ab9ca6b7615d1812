import AppStore
import HTTPClient

/// When a verification still unanswered is sent again. Pure: latencies and sends in, decisions
/// out, no clock.
///
/// Why: a request that hangs costs the whole `--apple-timeout` (15 s) plus a requeue; with 0.2%
/// hangs in a steady stream, time to verdict was p50 5.2 s but max 32 s. verifyReceipt (and
/// the Server API's reads) are idempotent reads, so a straggler can be asked again: once it is
/// unanswered past the recent p99 (× `margin`), a second request goes on another connection and
/// the first answer wins. Hedges are capped to `maxShare` of requests by a credit that each
/// first request adds to, so a slow Apple never doubles its own load; and the caller sends none
/// while the breaker is not closed (a down Apple gets no extra requests).
///
/// Paired tries: a job whose two tries before both met Apple's trouble (a 503, a 21005, a
/// timeout) is asked twice at once on its next tries, `pairedAttempts`, while the breaker is
/// closed. Why: under a degraded Apple the last verdicts of a backlog are jobs on their third to
/// fifth try, each try Apple's 3–6 s; at 15 % transient answers one try in seven fails again, and
/// one job in ~2,000 fails four times in a row, ending 15–25 s after the rest. Two requests at once
/// fail together one time in ~44, so such a job is usually done at its third try. It costs one
/// request more per paired try, outside the credit (which stragglers use up), and only for the
/// ~2 % of jobs that reach a third try at that failure rate, not the second (pairing every
/// retry would add ~0.15 requests per receipt to an Apple already failing 15 % of them, and take
/// slots from a backlog). Once the worker's backlog is drained (its last claim came back short,
/// so no job waits for a slot) second tries are paired too (`idlePairedAttempts`): that is the
/// end of a backlog, where every retry is a last verdict.
public struct HedgePolicy: Sendable, Equatable {
    /// How a verification's request goes.
    public enum Plan: Sendable, Equatable {
        /// Ask again if still unanswered after this long, spending a credit (`mayHedge`).
        case hedgeAfter(Duration)
        /// Two requests at once (a job on a paired try); the caller still checks the breaker. When
        /// one met Apple's trouble and the other is still out after this long (the hedge delay),
        /// that one is taken for hung (`HTTPHedge.stragglerAfter`).
        case paired(stragglerAfter: Duration)
    }

    /// Hedges at most this share of first requests. Default 2%.
    public var maxShare: Double
    /// A hedge goes after the recent p99 times this. Default 1.2.
    public var margin: Double
    /// Latencies kept (most recent first out). Default 1,000.
    public var window: Int
    /// Until this many answers were seen there is no p99 to go by: hedges wait `initialDelay`.
    /// Default 200.
    public var minimumSamples: Int
    /// The wait before a hedge until the p99 is known: twice Apple's usual slowest answer (6 s
    /// is reported), less than half the default `--apple-timeout`. A worker's first seconds
    /// would otherwise have no hedges at all, and a hang among its first few thousand requests
    /// cost the whole timeout plus a retry (35 s, bench outage with 0.2% hangs). Default 8 s.
    public var initialDelay: Duration
    /// Never earlier than this, whatever the p99 (a fast Apple needs no hedges). Default 1 s.
    public var floor: Duration
    /// The tries of a job sent as two requests at once (see above). Default 3...6: from the third
    /// to the last quick retry (`RetryPolicy.quickRetries`); nil: none.
    public var pairedAttempts: ClosedRange<Int>?
    /// The tries sent as two requests at once while no job waits for a slot. Default 2...6;
    /// nil: only `pairedAttempts`.
    public var idlePairedAttempts: ClosedRange<Int>?
    /// The most credit kept: how many hedges may go at once beyond the steady share. Default
    /// `defaultMaxCredit`; a worker sizes it to its concurrency (`sized(forConcurrency:)`).
    public var maxCredit: Double
    /// 10 hedges: the cap before any sizing, and the least a worker keeps.
    public static let defaultMaxCredit: Double = 10

    private var latencies: [Duration] = []
    private var next = 0
    private var sortedCache: [Duration]?
    private var credit = 0.0

    public init(maxShare: Double = 0.02, margin: Double = 1.2, window: Int = 1_000, minimumSamples: Int = 200,
                floor: Duration = .seconds(1), initialDelay: Duration = .seconds(8), pairedAttempts: ClosedRange<Int>? = 3...6,
                idlePairedAttempts: ClosedRange<Int>? = 2...6, maxCredit: Double = HedgePolicy.defaultMaxCredit) {
        self.maxCredit = maxCredit
        self.pairedAttempts = pairedAttempts
        self.idlePairedAttempts = idlePairedAttempts
        self.maxShare = maxShare
        self.margin = margin
        self.window = max(1, window)
        self.minimumSamples = minimumSamples
        self.floor = floor
        self.initialDelay = initialDelay
    }

    /// This policy with its credit cap sized for `concurrency` verifications in flight: three
    /// times the hedge share of them (at least 10).
    ///
    /// Why: the stragglers of a backlog's last seconds fall due after its last first requests
    /// went, when no credit comes in any more; they were paid for as they went, but a cap of 10
    /// had thrown that credit away. At 500 in flight with 1 % hangs and 15 % transient answers
    /// (`bench outage`), the last ~8 s of sends leave ~10 stragglers and their re-hedges: the
    /// credit ran out for the last few, each of which then waited its whole timeout and a retry,
    /// 8–18 s after the rest. Three times the share of the slots covers one hedge delay's worth
    /// of stragglers (~1.6 mean latencies) and their re-hedges; a slow Apple still gets at most
    /// that share of the slots at once, 6 % at the defaults, and 2 % of requests after.
    public func sized(forConcurrency concurrency: Int) -> HedgePolicy {
        var sized = self
        sized.maxCredit = max(Self.defaultMaxCredit, (Double(concurrency) * maxShare * 3).rounded(.up))
        return sized
    }

    /// Apple answered a verification of `requests` requests after `latency` in all. The hedge
    /// timer runs per request, so one request's share is kept: a sandbox receipt's verification
    /// is two (production answers 21007), and its whole 6–12 s taught the p99 a wait no single
    /// request has — with 5% sandbox receipts the hedge went after ~14 s, a second before the
    /// timeout, and a hung request took 22–31 s to its verdict (bench outage --sandbox 0.05).
    public mutating func answered(after latency: Duration, requests: Int) {
        answered(after: latency / max(1, requests))
    }

    /// Apple answered a request (first or hedge) after `latency`.
    public mutating func answered(after latency: Duration) {
        if latencies.count < window {
            latencies.append(latency)
        } else {
            latencies[next] = latency
            next = (next + 1) % window
        }
        sortedCache = nil
    }

    /// A first request goes out: it earns its share of a hedge. Returns how long to wait before
    /// hedging it (`initialDelay` while too few answers were seen to know the p99).
    public mutating func firstSent() -> Duration? {
        credit = min(credit + maxShare, maxCredit)
        guard latencies.count >= minimumSamples else { return max(floor, initialDelay) }
        return max(floor, percentile(0.99) * margin)
    }

    /// A first request goes out for a job on its `attempt`-th try: paired (two at once) or
    /// hedged after `firstSent()`'s wait. Either way it earns its share of a hedge.
    /// `backlogDrained`: the worker's last claim came back short (no job waits for a slot).
    public mutating func plan(attempt: Int, backlogDrained: Bool = false) -> Plan {
        let delay = firstSent() ?? initialDelay
        if pairedAttempts?.contains(attempt) == true { return .paired(stragglerAfter: delay) }
        if backlogDrained, idlePairedAttempts?.contains(attempt) == true { return .paired(stragglerAfter: delay) }
        return .hedgeAfter(delay)
    }

    /// Whether a hedge may go now (spends its credit). The caller checks the breaker first.
    public mutating func mayHedge() -> Bool {
        guard credit >= 1 else { return false }
        credit -= 1
        return true
    }

    /// Whether an answer that came while the verification's other request is still out ends the
    /// wait. An answer that says what the receipt is (valid, invalid, our secret refused, ask the
    /// other environment) does; Apple's trouble (a 503, a 21005, a timeout, a dropped connection)
    /// does not: a hedge that met a 503 ended a hung first request's wait with a retry (time to
    /// verdict 20 s where 14 s was due). With no other request out, any answer ends the wait.
    public static func endsTheWait(_ answer: Result<HTTPResponse, HTTPClientError>) -> Bool {
        guard case .success(let response) = answer else { return false }
        if case .retryLater = ReceiptClassification.classify(httpStatus: response.status, body: response.body) { return false }
        return true
    }

    /// The `quantile` of the latencies kept.
    public mutating func percentile(_ quantile: Double) -> Duration {
        if sortedCache == nil { sortedCache = latencies.sorted() }
        guard let sorted = sortedCache, !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * quantile).rounded(.down)))]
    }

    public static func == (left: HedgePolicy, right: HedgePolicy) -> Bool {
        left.maxShare == right.maxShare && left.margin == right.margin && left.window == right.window
            && left.minimumSamples == right.minimumSamples && left.floor == right.floor && left.initialDelay == right.initialDelay && left.latencies == right.latencies
            && left.credit == right.credit && left.pairedAttempts == right.pairedAttempts
            && left.idlePairedAttempts == right.idlePairedAttempts && left.maxCredit == right.maxCredit
    }
}
