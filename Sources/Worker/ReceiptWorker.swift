import AppStore
import Foundation
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle
import Synchronization

/// `receiptq worker`: claims jobs for its free slots, verifies them with Apple (thousands in
/// flight through one libcurl multi handle), and hands the outcomes to the `OutcomeWriter`.
///
/// Promises: it leases only as many jobs as it has free slots (invariant 6); a claim batch goes
/// out in chunks that give Apple's fast failures time to open the breaker, `canaryWindow` after
/// the first chunk following a lull (what is left when it opens is released unsent;
/// `CanaryPolicy`); it stops claiming while Apple is down (per-environment circuit breakers,
/// invariant 5) or says our shared secret is wrong (21004), and tells the other workers when
/// its breaker opens (`OutageNotice`), as they tell it; it wakes on NOTIFY receiptq_jobs and
/// polls as a fallback; on graceful shutdown (SIGTERM) it stops claiming, lets in-flight verifications finish until
/// `shutdownDeadline`, releases the rest without burning an attempt, and writes everything out.
public final class ReceiptWorker: Service, Sendable {
    private struct LoopState: ~Copyable {
        var inFlight = 0
        var breakers: [VerifyReceiptEnvironment: CircuitBreaker]
        var canary: CanaryPolicy
        var pausedUntil: ContinuousClock.Instant?
        var stopping = false
        /// When the last alert was logged, and how many were held back since (one per 10 s).
        var lastAlert: ContinuousClock.Instant?
        var heldBackAlerts = 0
    }

    public let configuration: WorkerConfiguration
    private let queue: JobQueue
    private let database: PostgresConfiguration
    private let verifier: VerifyReceiptClient
    private let writer: OutcomeWriter
    private let decision: AttemptDecision
    private let metrics: WorkerMetrics
    private let logger: Logger
    private let state: Mutex<LoopState>
    private let wake = WakeSignal()

    /// - Parameters:
    ///   - pool: connections for claims and outcome writes (2 are plenty).
    ///   - database: for the dedicated LISTEN connection.
    public init(configuration: WorkerConfiguration, pool: PostgresPool, database: PostgresConfiguration,
                verifier: VerifyReceiptClient, metrics: WorkerMetrics = WorkerMetrics(), logger: Logger) {
        self.configuration = configuration
        self.decision = configuration.decision
        self.queue = JobQueue(pool: pool, lifecycle: configuration.lifecycle)
        self.database = database
        self.verifier = verifier
        self.metrics = metrics
        self.logger = logger
        self.writer = OutcomeWriter(pool: pool, worker: configuration.name,
                                    lifecycle: configuration.lifecycle,
                                    configuration: configuration.writer, metrics: metrics, logger: logger)
        let breakers = Dictionary(uniqueKeysWithValues: VerifyReceiptEnvironment.allCases.map {
            ($0, CircuitBreaker(configuration: configuration.breaker))
        })
        self.state = Mutex(LoopState(breakers: breakers, canary: CanaryPolicy(
            window: configuration.canaryWindow, pace: configuration.sendPace, chunk: configuration.breaker.failureThreshold)))
    }

    /// Verifications in flight now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    public func run() async throws {
        let listener = PostgresListener(configuration: database, channels: ["receiptq_jobs", OutageNotice.channel], logger: logger)
        logger.notice("worker started", metadata: ["worker": "\(configuration.name)", "concurrency": "\(configuration.concurrency)"])
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.writer.run() }
                group.addTask {
                    for await event in listener.events {
                        if case .notification(let notification) = event, notification.channel == OutageNotice.channel {
                            self.heard(OutageNotice(payload: notification.payload))
                        } else {
                            self.wake.signal()
                        }
                    }
                }
                await self.claimAndVerify()
                listener.stop()
                self.writer.finish()
            }
        } onGracefulShutdown: {
            self.logger.notice("worker stopping: no more claims; finishing what is in flight")
            self.state.withLock { $0.stopping = true }
            self.wake.signal()
        }
        logger.notice("worker stopped", metadata: ["worker": "\(configuration.name)"])
    }

    private func claimAndVerify() async {
        await withDiscardingTaskGroup { verifications in
            while !state.withLock({ $0.stopping }) && !Task.isCancelled {
                let wanted = admission()
                guard wanted > 0 else {
                    await wake.wait(timeout: configuration.pollInterval)
                    continue
                }
                let leases: [JobLease]
                do {
                    leases = try await queue.claim(limit: wanted, worker: configuration.name, lease: configuration.lease)
                } catch {
                    logger.warning("claim failed; retrying in 1 s", metadata: ["error": "\(error)"])
                    state.withLock { $0.breakers[.production]?.notSent(wanted) }
                    try? await Task.sleep(for: .seconds(1))
                    continue
                }
                metrics.claimBatch.record(leases.count)
                state.withLock { state in
                    state.inFlight += leases.count
                    state.breakers[.production]?.notSent(wanted - leases.count)
                }
                metrics.inFlight.record(inFlight)
                await send(leases, in: &verifications)
                if leases.count < wanted {
                    await wake.wait(timeout: configuration.pollInterval)   // queue drained: wait for NOTIFY
                }
            }
            await drain(cancelling: &verifications)
        }
    }

    /// Slots to claim now: free slots (at most a batch), if Apple's production breaker and any
    /// 21004 pause allow. Few free slots wait briefly for more, so claims stay batched.
    private func admission() -> Int {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let until = state.pausedUntil, now < until { return 0 }
            let free = configuration.concurrency - state.inFlight
            let wanted = min(free, configuration.maxClaimBatch)
            return state.breakers[.production]?.admit(wanted, now: now) ?? wanted
        }
    }

    /// Sends a claim batch in chunks, checking the breaker between them (`CanaryPolicy`); what
    /// is left when it opens, or when the worker stops, is released unsent.
    private func send(_ leases: [JobLease], in verifications: inout DiscardingTaskGroup) async {
        let (chunk, firstPause, opened) = state.withLock { state in
            let breaker = state.breakers[.production]
            return (state.canary.chunk, state.canary.firstPause(now: .now, newestFailureSentAt: breaker?.newestFailureSentAt),
                    breaker?.gaugeValue == 2)
        }
        // Opened while the claim ran (another worker's notice, say): none of it goes. A probe
        // (half-open) does go.
        if opened {
            state.withLock { $0.breakers[.production]?.notSent(leases.count) }
            release(leases)
            return
        }
        var rest = leases[...]
        var pause = firstPause
        while !rest.isEmpty {
            let now = ContinuousClock.now
            state.withLock { $0.canary.sent(at: now) }
            for lease in rest.prefix(chunk) { verifications.addTask { await self.verify(lease) } }
            rest = rest.dropFirst(chunk)
            guard !rest.isEmpty else { return }
            try? await Task.sleep(for: pause)
            pause = configuration.sendPace
            if !productionBreakerIsClosed || Task.isCancelled || state.withLock({ $0.stopping }) {
                release(Array(rest))
                return
            }
        }
    }

    private var productionBreakerIsClosed: Bool {
        state.withLock { $0.breakers[.production]?.isClosed ?? true }
    }

    /// Leases claimed but not sent (the breaker opened while their batch went out, or the worker
    /// is stopping): back to the queue at once, their attempt given back.
    private func release(_ leases: [JobLease]) {
        for lease in leases { writer.submit(FinishedAttempt(lease: lease, decision: .result(.release))) }
        let remaining = state.withLock { state in
            state.inFlight -= leases.count
            return state.inFlight
        }
        metrics.inFlight.record(remaining)
        logger.info("released the rest of a claim unsent (Apple failed its first requests, or stopping)", metadata: ["released": "\(leases.count)"])
    }

    private func drain(cancelling verifications: inout DiscardingTaskGroup) async {
        let deadline = ContinuousClock.now + configuration.shutdownDeadline
        while inFlight > 0 && ContinuousClock.now < deadline {
            await wake.wait(timeout: .milliseconds(100))
        }
        if inFlight > 0 {
            logger.notice("shutdown deadline reached; releasing unfinished jobs", metadata: ["jobs": "\(inFlight)"])
            verifications.cancelAll()
        }
    }

    private func verify(_ lease: JobLease) async {
        defer {
            let remaining = state.withLock { state in
                state.inFlight -= 1
                return state.inFlight
            }
            metrics.inFlight.record(remaining)
            wake.signal()
        }
        let result: VerificationResult
        let sent = ContinuousClock.now
        do {
            result = try await verifier.verify(receiptData: lease.receiptData)
        } catch {
            writer.submit(FinishedAttempt(lease: lease, decision: .result(.release)))   // shutdown: not attempted
            return
        }
        metrics.appleLatency.recordNanoseconds(Int64(result.latency.seconds * 1e9))
        metrics.appleRequests(result.environment.rawValue).increment(by: result.calls)
        observe(result, sentAt: sent)
        var random = SystemRandomNumberGenerator()
        writer.submit(decision.decide(result, lease: lease, now: Date(), using: &random))
    }

    /// Answers that mean our side or Apple's protocol changed (21000, a status not in Apple's
    /// table, a 21007/21008 loop): the job is retried, never rejected, and a person must look.
    /// Logged at error level at most every 10 s, with the number held back.
    private func alert(_ reason: RetryReason, now: ContinuousClock.Instant) {
        let held: Int? = state.withLock { state in
            if let last = state.lastAlert, now - last < .seconds(10) {
                state.heldBackAlerts += 1
                return nil
            }
            defer { state.heldBackAlerts = 0 }
            state.lastAlert = now
            return state.heldBackAlerts
        }
        guard let held else { return }
        logger.error("Apple answered something this version does not handle; retrying, never rejecting — check for a receiptq update",
                     metadata: ["answer": "\(reason.summary)", "similar_answers_not_logged": "\(held)"])
    }

    /// Feeds the environment's breaker; pauses claiming on a configuration error.
    private func observe(_ result: VerificationResult, sentAt: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        let appleTrouble: Bool
        switch result.outcome {
        case .valid, .reject: appleTrouble = false
        case .retryLater(let reason):
            appleTrouble = reason.isAppleTrouble
            if reason.shouldAlert { alert(reason, now: now) }
        case .timedOut: appleTrouble = true
        case .configurationError:
            appleTrouble = false
            logger.critical("Apple answered 21004: the shared secret is wrong (check RECEIPTQ_SHARED_SECRET); not claiming for a while",
                            metadata: ["pause": "\(configuration.configurationErrorPause)"])
            state.withLock { $0.pausedUntil = now + configuration.configurationErrorPause }
        }
        let (before, after) = state.withLock { state in
            let before = state.breakers.mapValues(\.gaugeValue)
            // Two calls: the first environment answered JSON (21007/21008) before the switch. Its
            // breaker must hear it — this may be its probe, and a probe never answered kept a
            // worker from claiming forever (a sandbox receipt was the probe after an outage).
            if result.calls > 1, let first = VerifyReceiptEnvironment.allCases.first(where: { $0 != result.environment }) {
                state.breakers[first]?.recordSuccess(sentAt: sentAt)
            }
            if appleTrouble {
                state.breakers[result.environment]?.recordFailure(now: now, sentAt: sentAt)
            } else {
                state.breakers[result.environment]?.recordSuccess(sentAt: sentAt)
            }
            return (before, state.breakers.mapValues(\.gaugeValue))
        }
        // Both breakers may have moved: a sandbox receipt as production's probe closes production's.
        for environment in VerifyReceiptEnvironment.allCases {
            guard let gauge = after[environment], gauge != before[environment] else { continue }
            metrics.breaker(environment.rawValue).record(gauge)
            logger.warning("Apple \(environment.rawValue) circuit breaker \(Self.breakerNames[gauge])")
        }
        if before[result.environment] == 0 && after[result.environment] == 2 {
            announce(OutageNotice(environment: result.environment.rawValue, worker: configuration.name))
        }
    }

    private static let breakerNames = ["closed", "half-open", "open"]

    /// Tells the other workers; a notice that cannot be sent is only logged (they find out alone).
    private func announce(_ notice: OutageNotice) {
        Task {
            do {
                try await queue.announce(notice)
            } catch {
                logger.info("could not tell the other workers that Apple is failing", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Another worker's breaker opened: open ours if it is closed.
    private func heard(_ notice: OutageNotice?) {
        guard let notice, notice.worker != configuration.name,
              let environment = VerifyReceiptEnvironment(rawValue: notice.environment) else { return }
        let opened = state.withLock { $0.breakers[environment]?.recordFleetOutage(now: .now) ?? false }
        guard opened else { return }
        metrics.breaker(environment.rawValue).record(2)
        logger.warning("Apple \(environment.rawValue) circuit breaker open: another worker saw Apple failing",
                       metadata: ["reported_by": "\(notice.worker)"])
    }
}
