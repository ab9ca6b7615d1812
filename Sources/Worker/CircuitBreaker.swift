/// Stops a worker from hammering Apple while Apple is down (invariant 5). A pure state machine:
/// the worker feeds it results and asks it how many new verifications it may start.
///
/// closed ──(`failureThreshold` Apple-side failures in a row, or at least that many and at least
///          half of the last 2 × `failureThreshold` results)──▶ open
/// open ──(`openDuration` passed)──▶ half-open: exactly one probe verification
/// half-open ──probe answered──▶ closed;  ──probe failed──▶ open, duration doubled up to `maxOpenDuration`
///
/// While open, the worker claims nothing; so during an outage each worker sends at most one
/// request per open period, whatever its concurrency. When an outage begins under a steady
/// stream, requests sent before it keep answering for 3–6 s, and each such success would reset
/// a count of failures in a row while new requests fail (the demo measured 1.7 Apple requests
/// per receipt with the streak rule alone). So a success only counts when its request was sent
/// after the newest failed request was sent — older news says nothing about Apple now — and the
/// ratio rule catches what is left (the chaos suite measured 114 requests in a 4 s 503 storm
/// from 3 workers before stale successes were ignored).
///
/// Slow start: a new breaker, and one that just closed, lets only `failureThreshold` requests
/// out until a request sent since then is answered. A worker (re)started during an outage would
/// otherwise fire its whole backlog of overdue jobs at Apple before the first failure came back
/// (the chaos suite measured 374 requests in a 12 s outage, most from one restarted worker); so
/// would a worker whose probe, sent just before an outage began, came back fine after it began
/// (199 requests in the 9 s after the breakers had opened).
///
/// Fleet: a breaker only learns from its own worker's requests, so a worker that happened to
/// claim nothing while the others found Apple down would fire a whole claim batch at Apple
/// seconds into the outage (the chaos suite measured 290 requests in the fourth second of a
/// 503 storm, all from one such worker). So a worker whose breaker opens tells the others
/// (`OutageNotice`), and `recordFleetOutage` opens a closed breaker as if it had seen the run of
/// failures itself; from there each worker probes on its own.
///
/// Generic over the clock's `Instant`, which the caller passes to every event: production runs on
/// `ContinuousClock`, tests on a manual clock, and nothing here reads a clock of its own.
public struct CircuitBreaker<Instant: InstantProtocol & Sendable>: Sendable, Equatable where Instant.Duration == Duration {
    public typealias Configuration = CircuitBreakerConfiguration

    public enum State: Sendable, Equatable {
        case closed(consecutiveFailures: Int)
        case open(until: Instant, duration: Duration)
        case halfOpen(probeInFlight: Bool, lastDuration: Duration)
    }

    /// Where the breaker is, without its bookkeeping: what metrics show and logs name.
    public enum Phase: String, Sendable, Equatable, CaseIterable {
        case closed
        case halfOpen = "half-open"
        case open

        /// For the `receiptq_breaker_state` gauge: 0 closed, 1 half-open, 2 open.
        public var gaugeValue: Int {
            switch self {
            case .closed: 0
            case .halfOpen: 1
            case .open: 2
            }
        }
    }

    public let configuration: Configuration
    public private(set) var state: State = .closed(consecutiveFailures: 0)
    /// The last results while closed (true = failure), oldest first, at most 2 × threshold.
    private var recent: [Bool] = []
    /// When it last opened: answers to requests sent before then say nothing about Apple now.
    private var openedAt: Instant?
    /// When the newest failed request was sent: successes of requests sent before it are stale.
    public private(set) var newestFailureSentAt: Instant?
    /// Apple has answered a request sent since slow start began: slow start is over.
    private var answered = false
    /// When slow start began (nil: when the breaker was made).
    private var slowStartSince: Instant?
    /// Requests let out during slow start and not given back by `notSent`.
    private var admittedBeforeAnswer = 0
    /// When the probe in flight was let out.
    private var probeSentAt: Instant?

    public init(configuration: Configuration = .init()) { self.configuration = configuration }

    /// How many verifications may start now, given `wanted`: all of them when closed (at most
    /// `failureThreshold` in all before Apple's first answer), one probe when half-open, none
    /// when open.
    public mutating func admit(_ wanted: Int, now: Instant) -> Int {
        if case .open(let until, let duration) = state, now >= until {
            state = .halfOpen(probeInFlight: false, lastDuration: duration)
        }
        switch state {
        case .closed where answered: return wanted
        case .closed:
            let admitted = min(wanted, max(0, configuration.failureThreshold - admittedBeforeAnswer))
            admittedBeforeAnswer += admitted
            return admitted
        case .open: return 0
        case .halfOpen(let probeInFlight, let duration):
            let probeLost = probeInFlight && probeSentAt.map { now - $0 >= configuration.probeTimeout } ?? false
            guard !probeInFlight || probeLost, wanted > 0 else { return 0 }
            state = .halfOpen(probeInFlight: true, lastDuration: duration)
            probeSentAt = now
            return 1
        }
    }

    /// `count` of the verifications just admitted were not sent (fewer jobs to claim, or the
    /// claim failed): a probe may go again later, slow start gets its room back.
    public mutating func notSent(_ count: Int) {
        guard count > 0 else { return }
        if case .halfOpen(true, let duration) = state { state = .halfOpen(probeInFlight: false, lastDuration: duration) }
        if !answered { admittedBeforeAnswer = max(0, admittedBeforeAnswer - count) }
    }

    /// Apple answered (any JSON answer, valid or not) a request sent at `sentAt` (nil: just now).
    /// A request sent before the breaker opened is stale: during an outage, requests sent
    /// before it keep answering for seconds, and letting them close the breaker sent the workers
    /// straight back into the outage (1,794 wasted calls in a 3,000-receipt demo).
    public mutating func recordSuccess(now: Instant, sentAt: Instant? = nil) {
        if let openedAt, let sentAt, sentAt < openedAt, !isClosed { return }
        if isClosed, let newestFailureSentAt, let sentAt, sentAt < newestFailureSentAt {
            answeredWithoutEndingSlowStart()
            return
        }
        if case .closed = state {
            remember(false)
            if !answered, slowStartSince.map({ since in sentAt.map { $0 > since } ?? true }) ?? true { answered = true }
        } else {
            // The probe came back: closed, in slow start again.
            recent.removeAll()
            answered = false
            admittedBeforeAnswer = 0
            slowStartSince = sentAt ?? now
        }
        state = .closed(consecutiveFailures: 0)
    }

    /// Closed: claims are admitted (in slow start, a threshold of them).
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Apple-side trouble (network error, 5xx, HTML page, timeout, 21005/21199…) for a request
    /// sent at `sentAt` (nil: just now). Stale failures do not fail a half-open probe.
    public mutating func recordFailure(now: Instant, sentAt: Instant? = nil) {
        if let openedAt, let sentAt, sentAt < openedAt, !isClosed { return }
        let sent = sentAt ?? now
        if newestFailureSentAt.map({ sent > $0 }) ?? true { newestFailureSentAt = sent }
        switch state {
        case .closed(let failures):
            remember(true)
            answeredWithoutEndingSlowStart()
            let failed = recent.filter { $0 }.count
            if failures + 1 >= configuration.failureThreshold
                || (failed >= configuration.failureThreshold && failed * 2 >= recent.count) {
                open(now: now, for: configuration.openDuration)
            } else {
                state = .closed(consecutiveFailures: failures + 1)
            }
        case .halfOpen(_, let last):
            open(now: now, for: min(last * 2, configuration.maxOpenDuration))
        case .open:
            break   // answers of requests sent before it opened
        }
    }

    /// Another worker's breaker just opened for this environment: open a closed breaker for
    /// the first open period, so this worker does not find the outage out with a claim batch.
    /// An open or half-open breaker is left alone (it is already probing on its own schedule).
    /// - Returns: whether the breaker opened.
    @discardableResult
    public mutating func recordFleetOutage(now: Instant) -> Bool {
        guard isClosed else { return false }
        open(now: now, for: configuration.openDuration)
        return true
    }

    /// A request let out in slow start came back without proving Apple well (a failure, or a
    /// success older than a newer failure): its room is given back. Without this, a slow start
    /// whose answers were all of that kind — fewer failures than the threshold, the rest stale —
    /// admitted nothing ever again (a transaction runner sat on 60 queued jobs after an outage).
    private mutating func answeredWithoutEndingSlowStart() {
        if !answered { admittedBeforeAnswer = max(0, admittedBeforeAnswer - 1) }
    }

    private mutating func open(now: Instant, for duration: Duration) {
        recent.removeAll()
        openedAt = now
        state = .open(until: now + duration, duration: duration)
    }

    private mutating func remember(_ failure: Bool) {
        recent.append(failure)
        if recent.count > 2 * configuration.failureThreshold { recent.removeFirst() }
    }

    public var phase: Phase {
        switch state {
        case .closed: .closed
        case .halfOpen: .halfOpen
        case .open: .open
        }
    }
}

/// The breaker's thresholds and periods (shared by every instant type).
public struct CircuitBreakerConfiguration: Sendable, Equatable {
    /// Consecutive Apple-side failures that open the breaker. Default 20.
    public var failureThreshold = 20
    /// First open period. Default 2 s.
    public var openDuration: Duration = .seconds(2)
    /// Longest open period. Default 30 s.
    public var maxOpenDuration: Duration = .seconds(30)
    /// A probe unanswered this long is given up and another may go: a lost answer must not
    /// keep the worker from claiming forever. Default 60 s (more than two Apple timeouts).
    public var probeTimeout: Duration = .seconds(60)
    public init() {}
}
