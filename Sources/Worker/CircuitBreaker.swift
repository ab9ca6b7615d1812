/// Stops a worker from hammering Apple while Apple is down (invariant 5), and keeps it at full
/// rate while Apple is merely degraded. A pure state machine: the worker feeds it results and
/// asks it how many new verifications it may start.
///
/// closed ──(three quarters of the newest `failureThreshold` or more requests sent have failed;
///          or, for failures that took `slowFailure` or longer, at least `failureThreshold` and
///          half of the last 4 × `failureThreshold` answers)──▶ open
/// open ──(`openDuration` passed)──▶ half-open: one probe verification, and another each open
///          period while the earlier ones are unanswered
/// half-open ──a probe answered──▶ closed, in slow start;  ──a probe failed──▶ open, duration
///          doubled up to `maxOpenDuration` (2 s: a fleet back from an outage hears of it within
///          seconds)
///
/// Degraded is not down. Apple's failures often come back at once (a 503) while its successes
/// take 3–6 s, so answers alone cannot tell the two apart: for the first seconds after a batch
/// goes out, only its failures have come back. Earlier rules (failures in a row; successes of
/// requests sent before the newest failure ignored as stale) opened the breaker every 7–8 s under
/// 5% 503 + 5% 21005 + 5% 21199 + 1% hangs, cutting first attempts from ~110/s to ~25/s. So fast
/// failures are measured against what was *sent*: in an outage nearly every request sent fails,
/// in a degraded Apple a steady share does. Failures that are slow (timeouts, pages served after
/// the usual latency) arrive no faster than successes, so for them the share of recent answers
/// works, every success counting. "What was sent" is the newest requests, at least a threshold
/// of them: in an outage every request sent since it began fails, so the newest 20 fail within
/// milliseconds whatever is still in flight from before (a rule over a whole second of sends let
/// a busy worker send ~70 into an outage before opening); in a degraded Apple the newest 20 hold
/// their steady share of failures and their pending successes. Each failure is also judged with
/// the newest sends as of its own sending: a busy worker's next chunk (or a retry) sent before the
/// first chunk's failures came back would otherwise hide them behind answers still on their way
/// (a fleet test measured 40 requests into an outage where 23 was the bound).
///
/// While open, the worker claims nothing; so during an outage each worker sends at most one
/// request per open period, whatever its concurrency. Answers to requests sent before it opened
/// neither close it nor fail a probe.
///
/// Probes go one per open period whether or not the one before was answered, and the first
/// answered closes the breaker. Why: Apple's answers take 3–6 s, so a probe that waited for its
/// predecessor's answer left a worker back from an outage asking nothing for that long; and when
/// Apple is back but degraded, a probe that meets a 21005 (one in six at 15 % transient answers)
/// cost its 3–6 s, the open period and the next probe's 3–6 s: a whole backlog ~13 s later
/// (`bench outage`, one run in six). The rate into an outage is unchanged — one request per open
/// period — and a hung Apple now sees that rate too instead of one probe per timeout. A failed
/// probe re-opens the breaker, but the outage began when it first opened (`openedAt`), so a
/// probe sent since then and answered afterwards still closes it.
///
/// Slow start: a new breaker, and one that just closed, lets `failureThreshold` requests be
/// outstanding, and each success of one of them lets `slowStartGrowth` more out until
/// `slowStartCeiling`, then everything: 20 out, then all once ten of them answered well. A
/// worker (re)started during an outage would otherwise fire its whole backlog at Apple before
/// the first failure came back (the chaos suite measured 374 requests in a 12 s outage); a
/// one-step slow start sent a just-recovered Apple the whole backlog one round trip after the
/// probe, on the strength of one answer. Growth follows successes only, so in an outage it never
/// begins; what it costs a healthy Apple is round trips of 3–6 s. At ×4 per round trip (20, 80,
/// 320) a worker reached full rate ~13 s after its probe closed the breaker, half of a
/// degraded-Apple run's 25–30 s recovery; now the first round's answers are the proof.
/// `recordFleetHealthy` skips it: a worker that starts while the fleet reports recent successes
/// needs no round trip to learn that Apple is up.
///
/// Fleet: a breaker only learns from its own worker's requests, so a worker whose breaker opens
/// tells the others (`OutageNotice`), and `recordFleetOutage` opens a closed breaker as if it had
/// seen the run of failures itself; from there each worker probes on its own.
///
/// Generic over the clock's `Instant`, which the caller passes to every event: production runs on
/// `ContinuousClock`, tests on a manual clock, and nothing here reads a clock of its own.
public struct CircuitBreaker<Instant: InstantProtocol & Sendable>: Sendable, Equatable where Instant.Duration == Duration {
    public typealias Configuration = CircuitBreakerConfiguration

    public enum State: Sendable, Equatable {
        case closed
        case open(until: Instant, duration: Duration)
        case halfOpen(probeInFlight: Bool, lastDuration: Duration)
    }

    /// Where the breaker is, without its bookkeeping: what metrics show and logs name.
    public enum Phase: String, Sendable, Equatable, CaseIterable {
        case closed
        case halfOpen = "half-open"
        case open

        /// The `state` label of the breaker metrics: closed, half_open, open.
        public var metricLabel: String {
            switch self {
            case .closed: "closed"
            case .halfOpen: "half_open"
            case .open: "open"
            }
        }
    }

    public let configuration: Configuration
    public private(set) var state: State = .closed
    /// The last answers while closed (true = a slow failure), oldest first, at most 4 × threshold.
    /// Fast failures are judged against sends instead (`sends`).
    private var recent: [Bool] = []
    /// Requests sent and failed, by when they were sent, over the last `sendWindow`.
    private var sends = SendWindow()
    /// When it opened from closed (re-opening after a failed probe keeps it): answers to requests
    /// sent before then say nothing about Apple now; a probe's answer does.
    private var openedAt: Instant?
    /// When the newest failed request was sent (the canary policy reads it).
    public private(set) var newestFailureSentAt: Instant?
    /// nil: full rate. Otherwise how many requests may be outstanding, and how many are.
    private var slowStart: SlowStart? = SlowStart(since: nil, window: 0, outstanding: 0)
    /// When the probe in flight was let out.
    private var probeSentAt: Instant?

    struct SlowStart: Sendable, Equatable {
        /// Requests sent before this were not admitted by this slow start (nil: all were).
        var since: Instant?
        /// Beyond `failureThreshold`: grown by each success.
        var window: Int
        var outstanding: Int

        func admits(_ sentAt: Instant?) -> Bool {
            guard let since, let sentAt else { return true }
            return sentAt >= since
        }
    }

    public init(configuration: Configuration = .init()) { self.configuration = configuration }

    /// In slow start: how many requests may be outstanding now (nil at full rate).
    public var slowStartWindow: Int? { slowStart.map { configuration.failureThreshold + $0.window } }

    /// How many verifications may start now, given `wanted`: all of them when closed (in slow
    /// start, up to its window outstanding), one probe when half-open, none when open.
    public mutating func admit(_ wanted: Int, now: Instant) -> Int {
        if case .open(let until, let duration) = state, now >= until {
            state = .halfOpen(probeInFlight: false, lastDuration: duration)
        }
        switch state {
        case .closed:
            var admitted = wanted
            if var slow = slowStart {
                admitted = min(wanted, max(0, configuration.failureThreshold + slow.window - slow.outstanding))
                slow.outstanding += admitted
                slowStart = slow
            }
            return admitted
        case .open: return 0
        case .halfOpen(let probeInFlight, let duration):
            // Another probe once the last has been out an open period (the rate into an outage).
            let probeDue = !probeInFlight || probeSentAt.map { now - $0 >= duration } ?? true
            guard probeDue, wanted > 0 else { return 0 }
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
        if var slow = slowStart {
            slow.outstanding = max(0, slow.outstanding - count)
            slowStart = slow
        }
    }

    /// `count` requests admitted earlier will not be sent after all: the era they were admitted
    /// in ended (the breaker opened, a 21004 pause began) before they went. Slow start gets their
    /// room back; a probe in flight is left alone, since its slot was never theirs (`notSent`
    /// would free it, and let a second probe out within the open period).
    public mutating func admittedNotSent(_ count: Int) {
        guard count > 0, var slow = slowStart else { return }
        slow.outstanding = max(0, slow.outstanding - count)
        slowStart = slow
    }

    /// `count` requests are going to Apple now: what fast failures are measured against. (Told at
    /// sending, not admission: a claim's canaries go first and the rest may never be sent.)
    public mutating func sent(_ count: Int, now: Instant) {
        guard isClosed else { return }
        sends.sent(count, at: now, window: configuration.sendWindow)
    }

    /// Apple answered (any JSON answer, valid or not) a request sent at `sentAt` (nil: just now).
    /// A request sent before the breaker opened is stale while it is open or probing: during an
    /// outage, requests sent before it keep answering for seconds, and letting them close the
    /// breaker sent the workers straight back into the outage (1,794 wasted calls in a
    /// 3,000-receipt demo).
    public mutating func recordSuccess(now: Instant, sentAt: Instant? = nil) {
        if let openedAt, let sentAt, sentAt < openedAt, !isClosed { return }
        if case .closed = state {
            remember(false)
            if var slow = slowStart, slow.admits(sentAt) {
                slow.outstanding = max(0, slow.outstanding - 1)
                slow.window += configuration.slowStartGrowth
                slowStart = configuration.failureThreshold + slow.window >= configuration.slowStartCeiling ? nil : slow
            }
        } else {
            // The probe came back: closed, in slow start again.
            recent.removeAll()
            sends = SendWindow()
            slowStart = SlowStart(since: sentAt ?? now, window: 0, outstanding: 0)
        }
        state = .closed
    }

    /// Other workers report recent successes from Apple: this one needs no round trip to learn
    /// that Apple is up, so a closed breaker leaves slow start at once.
    /// - Returns: whether it was in slow start.
    @discardableResult
    public mutating func recordFleetHealthy() -> Bool {
        guard isClosed, slowStart != nil else { return false }
        slowStart = nil
        return true
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
        case .closed:
            if now - sent >= configuration.slowFailure { remember(true) }
            sends.failed(sentAt: sent, now: now, window: configuration.sendWindow)
            if var slow = slowStart, slow.admits(sentAt) {
                slow.outstanding = max(0, slow.outstanding - 1)
                slowStart = slow
            }
            let slowFailures = recent.filter { $0 }.count
            let threshold = configuration.failureThreshold
            let newest = sends.newest(atLeast: threshold, now: now, window: configuration.sendWindow)
            let upToThis = sends.newest(atLeast: threshold, sentUpTo: sent, now: now, window: configuration.sendWindow)
            if (newest.sent >= threshold && newest.failed * 4 >= newest.sent * 3)
                || (upToThis.sent >= threshold && upToThis.failed * 4 >= upToThis.sent * 3)
                || (slowFailures >= threshold && slowFailures * 2 >= recent.count) {
                open(now: now, for: configuration.openDuration)
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

    private mutating func open(now: Instant, for duration: Duration) {
        if isClosed { openedAt = now }
        recent.removeAll()
        sends = SendWindow()
        state = .open(until: now + duration, duration: duration)
    }

    private mutating func remember(_ failure: Bool) {
        recent.append(failure)
        if recent.count > 4 * configuration.failureThreshold { recent.removeFirst() }
    }

    /// Requests sent and failed per 100 ms of sending, over the last `sendWindow` (a few dozen
    /// counters at most).
    struct SendWindow: Sendable, Equatable {
        static var slot: Duration { .milliseconds(100) }
        private var epoch: Instant?
        private var slots: [(index: Int, sent: Int, failed: Int)] = []

        static func == (left: SendWindow, right: SendWindow) -> Bool {
            left.epoch == right.epoch && left.slots.elementsEqual(right.slots) { $0.index == $1.index && $0.sent == $1.sent && $0.failed == $1.failed }
        }

        private mutating func index(_ instant: Instant) -> Int {
            if epoch == nil { epoch = instant }
            return Int(((epoch ?? instant).duration(to: instant) / Self.slot).rounded(.down))
        }

        private mutating func add(at slot: Int, sent: Int = 0, failed: Int = 0, newest: Int, window: Duration) {
            let oldest = newest - Int((window / Self.slot).rounded(.up))
            slots.removeAll { $0.index < oldest }
            guard slot >= oldest else { return }
            if let position = slots.firstIndex(where: { $0.index == slot }) {
                slots[position].sent += sent
                slots[position].failed += failed
            } else {
                slots.append((slot, sent, failed))
            }
        }

        mutating func sent(_ count: Int, at now: Instant, window: Duration) {
            guard count > 0 else { return }
            let slot = index(now)
            add(at: slot, sent: count, newest: slot, window: window)
        }

        mutating func failed(sentAt: Instant, now: Instant, window: Duration) {
            add(at: index(sentAt), failed: 1, newest: index(now), window: window)
        }

        /// The newest slots holding at least `count` requests sent (fewer if the window holds
        /// fewer): how many were sent and how many of those failed. A failure whose send was not
        /// counted (a caller that does not report sends) counts as a send too.
        /// With `sentUpTo`: the newest slots up to the one holding that instant — the requests
        /// sent by the time a failed one was, so later sends (another chunk, a retry) cannot
        /// dilute an outage's failures before their own answers come back.
        mutating func newest(atLeast count: Int, sentUpTo: Instant? = nil, now: Instant, window: Duration) -> (sent: Int, failed: Int) {
            let oldest = index(now) - Int((window / Self.slot).rounded(.up))
            let newestSlot = sentUpTo.map { index($0) } ?? Int.max
            var total = (sent: 0, failed: 0)
            for slot in slots.sorted(by: { $0.index > $1.index }) where slot.index >= oldest && slot.index <= newestSlot {
                total.sent += max(slot.sent, slot.failed)
                total.failed += slot.failed
                if total.sent >= count { break }
            }
            return total
        }
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
    /// Consecutive Apple-side failures that open the breaker; also the first slow-start window.
    /// Default 20.
    public var failureThreshold = 20
    /// First open period. Default 2 s.
    public var openDuration: Duration = .seconds(2)
    /// Longest open period: failed probes double the period up to this. Default 2 s, the first
    /// period: one request per 2 s per worker while Apple is down (the bound the chaos suite
    /// holds the fleet to), so a worker hears of Apple's return within 2 s. 30 s left the demo's
    /// fleet idle for 17 s after a 15 s outage ended; 4 s cost a degraded-Apple run 2 s on
    /// average after the return, and a failed probe (one in six when 15 % of Apple's answers are
    /// transient) 4 s more.
    public var maxOpenDuration: Duration = .seconds(2)
    /// How far back the newest requests sent are looked for (a worker sending a few a second
    /// still has a threshold of them). Default 10 s.
    public var sendWindow: Duration = .seconds(10)
    /// A failure answered after this long is judged as successes are, by its share of recent
    /// answers (timeouts, outage pages served at Apple's usual latency). Default 1 s.
    public var slowFailure: Duration = .seconds(1)
    /// Slow start: each success lets this many more requests out. Default 15 (×16 per round
    /// trip).
    public var slowStartGrowth = 15
    /// Slow start ends once this many requests may be outstanding. Default 170: ten successes
    /// from the first window of 20. Why not 320 (all twenty): when Apple comes back degraded,
    /// 15 % of its answers are transient, so the first round brings ~17 successes, not 20, and
    /// slow start waited for the second round's answers — ~3 s more at ~290 of 500 slots in
    /// `bench outage`, after every recovery and at every cold start. Ten of twenty is still
    /// the first round's answers as proof; an Apple that is down never answers one.
    public var slowStartCeiling = 170
    public init() {}
}
