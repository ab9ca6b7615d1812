import AppStore
import ReceiptQueue

/// Every decision the worker makes, as a pure value type in the manner of postgres-nio's
/// `PoolStateMachine`: the worker reports each event (a look at the queue, a claim came back, an
/// answer arrived, another worker's notice was heard, stop) with the time to `handle`, and the
/// gate answers with the `Action`s to carry out — claim, send, pause, release, record, wait,
/// meter, log, announce (`WorkerGate+Events`). Nothing here reads a clock, a random source or the
/// network, so every rule is tested with a manual clock in microseconds (`WorkerGateTests`,
/// `WorkerGateEventTests`) as well as in real time.
///
/// What it decides:
/// - admission: free slots (at most a claim batch), unless the production breaker or a 21004
///   pause says no (`slotsToClaim`);
/// - per-environment circuit breakers fed by every answer (`CircuitBreaker`), and when a closed
///   breaker opens, telling the fleet (`OutageNotice`) — never for a failed probe;
/// - sending a claim batch in chunks with canaries after a lull (`CanaryPolicy`), and releasing
///   what is left unsent when the breaker opens;
/// - eras: what was admitted before the production breaker opened, a 21004 pause began or the
///   worker began stopping is never sent after it (`era`, `maySend(admittedIn:)`);
/// - the 21004 pause: one receipt answered 21004 is that job's problem (it is retried and, after
///   a few, given up — `AttemptDecision`); `secretMismatchJobs` distinct jobs answered 21004
///   within `secretMismatchWindow` mean our shared secret is wrong: claiming pauses, then goes
///   one job at a time until Apple accepts the secret again;
/// - alert throttling (at most one alert per `alertInterval`, counting the ones held back).
public struct WorkerGate<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    public struct Configuration: Sendable {
        /// This worker's name; its own outage notices are ignored.
        public var name: String
        /// Verifications in flight at most.
        public var concurrency: Int
        /// Most jobs per claim.
        public var maxClaimBatch: Int
        /// After several jobs were answered 21004, claim nothing for this long.
        public var configurationErrorPause: Duration
        /// Distinct jobs answered 21004 within `secretMismatchWindow` that pause claiming. Default 5.
        public var secretMismatchJobs: Int
        /// Default 60 s.
        public var secretMismatchWindow: Duration
        /// At most one alert log line per this long. Default 10 s.
        public var alertInterval: Duration
        public var breaker: CircuitBreaker<Instant>.Configuration
        public var canaryWindow: Duration
        public var sendPace: Duration

        public init(name: String, concurrency: Int, maxClaimBatch: Int, configurationErrorPause: Duration,
                    secretMismatchJobs: Int = 5, secretMismatchWindow: Duration = .seconds(60),
                    alertInterval: Duration = .seconds(10), breaker: CircuitBreaker<Instant>.Configuration,
                    canaryWindow: Duration, sendPace: Duration) {
            self.secretMismatchJobs = secretMismatchJobs
            self.secretMismatchWindow = secretMismatchWindow
            self.name = name
            self.concurrency = concurrency
            self.maxClaimBatch = maxClaimBatch
            self.configurationErrorPause = configurationErrorPause
            self.alertInterval = alertInterval
            self.breaker = breaker
            self.canaryWindow = canaryWindow
            self.sendPace = sendPace
        }
    }

    /// What the gate decided about Apple, for the worker to log, meter or announce (`Action.report`).
    public enum Report: Sendable, Equatable {
        /// An environment's breaker changed phase; `reportedBy` names the worker whose notice
        /// opened it (nil: this worker's own answers).
        case breakerMoved(VerifyReceiptEnvironment, CircuitBreaker<Instant>.Phase, reportedBy: String?)
        /// Tell the other workers that this environment is failing (`OutageNotice`).
        case announceOutage(VerifyReceiptEnvironment)
        /// Apple answered something this version does not handle; `heldBack` similar alerts were
        /// not logged since the last one.
        case alert(RetryReason, heldBack: Int)
        /// Apple refused our shared secret for one job; `heldBack` similar answers were not
        /// logged since the last one. The job is retried; nothing pauses.
        case secretRefused(job: Int64, heldBack: Int)
        /// Several jobs were refused: our shared secret is wrong. Log it loudly; claiming pauses
        /// for the duration, then goes one job at a time until the secret is accepted.
        case configurationErrorPause(Duration)
    }

    /// How to send a claim batch.
    enum SendPlan: Sendable, Equatable {
        /// The breaker opened while the claim ran: send none of it, release it all.
        case releaseAll
        /// Send `chunk` at a time; wait `firstPause` after the first chunk, `pace` after the
        /// others, and check `maySendMore` before each chunk after the first.
        case chunks(of: Int, firstPause: Duration, pace: Duration)
    }

    public let configuration: Configuration
    /// Verifications claimed and not yet finished or released.
    public private(set) var inFlight = 0
    public private(set) var stopping = false
    /// Ends each time what was admitted must no longer go to Apple: the production breaker
    /// opened, a 21004 pause began, the worker began stopping. A claim, its chunks and each of its
    /// requests go only while the era they were admitted in lasts. Why: a claim still running in
    /// the database when a 21004 pause began sent its first chunk into the pause, and a
    /// verification task the scheduler started late sent its request after it (a busy CI machine
    /// saw 7 requests after the pause, `VerdictPolicyTests`).
    public private(set) var era = 0
    /// The era of the claim now running (a worker claims one batch at a time).
    private var claimEra = 0
    private var breakers: [VerifyReceiptEnvironment: CircuitBreaker<Instant>]
    private var canary: CanaryPolicy<Instant>
    private var pausedUntil: Instant?
    /// Jobs answered 21004 recently, with when.
    private var secretMismatches: [Int64: Instant] = [:]
    /// After a 21004 pause: one job at a time until an answer that is not 21004 to a request
    /// sent after the pause began (older answers say nothing about the secret now).
    private var probingSecret = false
    private var secretPausedAt: Instant?
    private var lastAlert: Instant?
    private var heldBackAlerts = 0
    /// The rest of the claim being sent in chunks (`WorkerGate+Events`).
    var unsent: ArraySlice<JobLease> = []
    /// Its chunk size and the pause between chunks.
    var sendPlan: (chunk: Int, pace: Duration) = (1, .zero)
    /// After the claim is sent (or released): wait this long for a wake-up (the claim came back
    /// short, so the queue is drained), or look again at once (nil).
    var waitAfterBatch: Duration?
    /// The last claim came back short: no job ready now waits for one of this worker's slots
    /// (`HedgePolicy.idlePairedAttempts`).
    public var backlogDrained: Bool { waitAfterBatch != nil }

    public init(configuration: Configuration) {
        self.configuration = configuration
        breakers = Dictionary(uniqueKeysWithValues: VerifyReceiptEnvironment.allCases.map {
            ($0, CircuitBreaker<Instant>(configuration: configuration.breaker))
        })
        canary = CanaryPolicy(window: configuration.canaryWindow, pace: configuration.sendPace, chunk: configuration.breaker.failureThreshold)
    }

    /// An environment's breaker phase.
    public func phase(_ environment: VerifyReceiptEnvironment) -> CircuitBreaker<Instant>.Phase {
        breakers[environment]?.phase ?? .closed
    }

    // MARK: - Claiming and sending

    /// Jobs to claim now: free slots (at most a batch) if the production breaker and any 21004
    /// pause allow; 0 when stopping. What is admitted and not claimed must be given back with
    /// `claimed(_:of:now:)` or `claimFailed(wanted:)`.
    mutating func slotsToClaim(now: Instant) -> Int {
        if stopping { return 0 }
        if let pausedUntil, now < pausedUntil { return 0 }
        var wanted = min(configuration.concurrency - inFlight, configuration.maxClaimBatch)
        if probingSecret { wanted = inFlight == 0 ? min(wanted, 1) : 0 }
        guard wanted > 0 else { return 0 }
        claimEra = era
        return breakers[.production]?.admit(wanted, now: now) ?? wanted
    }

    /// A claim for `wanted` came back with `count` jobs; they are in flight until sent and
    /// finished, or released.
    mutating func claimed(_ count: Int, of wanted: Int, now: Instant) -> SendPlan {
        inFlight += count
        breakers[.production]?.notSent(wanted - count)
        guard count > 0 else { return .chunks(of: canary.chunk, firstPause: .zero, pace: configuration.sendPace) }
        // The breaker opened (another worker's notice, say), a 21004 pause began or the worker
        // began stopping while the claim ran: none of it goes. A probe (half-open) does go.
        guard claimEra == era else {
            breakers[.production]?.notSent(count)
            return .releaseAll
        }
        let pause = canary.firstPause(now: now, newestFailureSentAt: breakers[.production]?.newestFailureSentAt)
        return .chunks(of: canary.chunk, firstPause: pause, pace: configuration.sendPace)
    }

    /// Other workers heard from Apple recently (`FleetAnsweredRecently`): skip slow start.
    /// - Returns: whether slow start was skipped.
    @discardableResult
    mutating func fleetAnswered(_ environment: VerifyReceiptEnvironment) -> Bool {
        breakers[environment]?.recordFleetHealthy() ?? false
    }

    /// The claim failed: nothing was leased.
    mutating func claimFailed(wanted: Int) {
        breakers[.production]?.notSent(wanted)
    }

    /// A chunk of `count` requests of a batch is going out now.
    mutating func sendingChunk(_ count: Int, now: Instant) {
        canary.sent(at: now)
        breakers[.production]?.sent(count, now: now)
    }

    /// Whether the next chunk of the batch being sent may go: its era lasts (the production
    /// breaker did not open, no 21004 pause began, the worker is not stopping). Otherwise the
    /// rest is released.
    var maySendMore: Bool { maySend(admittedIn: claimEra) }

    /// Whether a request admitted in `admittedIn` may still go, checked once more just before it
    /// is sent (its task may start late on a busy machine). Otherwise its job is released.
    public func maySend(admittedIn: Int) -> Bool { !stopping && admittedIn == era }

    /// Whether a straggler may be asked again (`HedgePolicy`): a hedge is one more request, so
    /// only while the production breaker is closed and no 21004 pause holds the worker back.
    public var mayHedge: Bool { !probingSecret && phase(.production) == .closed }

    /// A claimed job was decided on this machine without asking Apple (a receipt refused by the
    /// local check): its slot is free, and the production breaker gets its admission back — in
    /// slow start the breaker admits only a threshold before Apple answers, and a run of garbage
    /// never answered by Apple once held every later claim.
    mutating func decidedLocally() {
        inFlight -= 1
        breakers[.production]?.notSent(1)
    }

    /// `count` verifications admitted by the production breaker will not be sent after all (their
    /// era ended): slow start gets their room back. Without it, requests held back by a 21004
    /// pause stayed outstanding in slow start for good, and later claims got less room.
    mutating func notSentAfterAdmission(_ count: Int) {
        breakers[.production]?.admittedNotSent(count)
    }

    /// `count` claimed jobs go back unsent (their attempt given back).
    mutating func released(_ count: Int) {
        inFlight -= count
    }

    /// Graceful shutdown began: no more claims, no more chunks, no requests not yet sent.
    mutating func stop() {
        stopping = true
        era += 1
    }

    // MARK: - Answers and notices

    /// The verification of `job`, sent at `sentAt`, finished with `result` (or was cancelled:
    /// `result` nil).
    mutating func finished(_ result: VerificationResult?, job: Int64 = 0, sentAt: Instant, now: Instant) -> [Report] {
        inFlight -= 1
        guard let result else { return [] }
        var actions: [Report] = []
        let appleTrouble: Bool
        // Apple's certificate did not verify: our CA bundle or clock, not Apple's health. The
        // breaker hears nothing (its probe slot is given back): opening it would pause the fleet
        // behind "Apple is down" while the alert says what is wrong.
        var reachedApple = true
        switch result.outcome {
        case .valid, .reject:
            appleTrouble = false
            if secretPausedAt.map({ sentAt >= $0 }) ?? true {
                probingSecret = false   // Apple accepted our secret: whatever was wrong is fixed
                secretPausedAt = nil
                secretMismatches.removeAll()
            }
        case .retryLater(let reason):
            appleTrouble = reason.isAppleTrouble
            if case .tls = reason { reachedApple = false }
            if reason.shouldAlert, let held = throttleAlert(now: now) { actions.append(.alert(reason, heldBack: held)) }
        case .timedOut: appleTrouble = true
        case .configurationError:
            appleTrouble = false
            secretMismatches = secretMismatches.filter { $0.value.duration(to: now) < configuration.secretMismatchWindow }
            secretMismatches[job] = now
            if secretMismatches.count >= configuration.secretMismatchJobs || probingSecret {
                pausedUntil = now + configuration.configurationErrorPause
                era += 1
                probingSecret = true
                secretPausedAt = now
                secretMismatches.removeAll()
                actions.append(.configurationErrorPause(configuration.configurationErrorPause))
            } else if let held = throttleAlert(now: now) {
                actions.append(.secretRefused(job: job, heldBack: held))
            }
        }
        let before = breakers.mapValues(\.phase)
        // Two calls: the first environment answered JSON (21007/21008) before the switch. Its
        // breaker must hear it — this may be its probe, and a probe never answered kept a worker
        // from claiming forever (a sandbox receipt was the probe after an outage).
        if result.calls > 1, let first = VerifyReceiptEnvironment.allCases.first(where: { $0 != result.environment }) {
            breakers[first]?.recordSuccess(now: now, sentAt: sentAt)
        }
        if !reachedApple {
            breakers[result.environment]?.notSent(1)
        } else if appleTrouble {
            breakers[result.environment]?.recordFailure(now: now, sentAt: sentAt)
        } else {
            breakers[result.environment]?.recordSuccess(now: now, sentAt: sentAt)
        }
        // Both breakers may have moved: a sandbox receipt as production's probe closes production's.
        for environment in VerifyReceiptEnvironment.allCases {
            guard let phase = breakers[environment]?.phase, phase != before[environment] else { continue }
            actions.append(.breakerMoved(environment, phase, reportedBy: nil))
        }
        if before[result.environment] == .closed && breakers[result.environment]?.phase == .open {
            actions.append(.announceOutage(result.environment))
        }
        if before[.production] != .open && breakers[.production]?.phase == .open { era += 1 }
        return actions
    }

    /// Another worker's breaker opened: open ours if it is closed. Our own notices, and notices
    /// that are not about a known environment, are ignored.
    mutating func heard(_ notice: OutageNotice, now: Instant) -> [Report] {
        guard notice.worker != configuration.name,
              let environment = VerifyReceiptEnvironment(rawValue: notice.environment),
              breakers[environment]?.recordFleetOutage(now: now) == true else { return [] }
        if environment == .production { era += 1 }
        return [.breakerMoved(environment, .open, reportedBy: notice.worker)]
    }

    /// nil when an alert was logged less than `alertInterval` ago (it is counted); else the
    /// number held back since the last one.
    private mutating func throttleAlert(now: Instant) -> Int? {
        if let lastAlert, lastAlert.duration(to: now) < configuration.alertInterval {
            heldBackAlerts += 1
            return nil
        }
        defer { heldBackAlerts = 0 }
        lastAlert = now
        return heldBackAlerts
    }
}
