import AppleSignedData
import AppStore
import Foundation
import HTTPClient
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
    public let configuration: WorkerConfiguration
    let queue: JobQueue
    private let database: PostgresConfiguration
    let verifier: VerifyReceiptClient
    /// Verifies each receipt on this machine before Apple is asked (`LocalReceiptDecision`); nil: off.
    let localReceipts: AppReceiptVerifier?
    private let writer: OutcomeWriter
    let decision: AttemptDecision
    let metrics: WorkerMetrics
    let logger: Logger
    /// Every decision about claiming and talking to Apple; this class only carries them out.
    let gate: Mutex<WorkerGate<ContinuousClock.Instant>>
    private let wake = WakeSignal()
    /// When an ignored (untrusted) outage notice was last logged.
    let ignoredNoticeLog = Mutex<ContinuousClock.Instant?>(nil)
    /// When a straggler is asked again (nil: never).
    let hedging: Mutex<HedgePolicy?>
    /// The verifications in flight.
    private let verifications = VerificationTasks()
    /// Apple's latency and the breakers' states, summed per minute for the console (nil: not kept).
    let calls: CallRecorder?

    /// - Parameters:
    ///   - pool: connections for claims and outcome writes (2 are plenty).
    ///   - database: for the dedicated LISTEN connection.
    public init(configuration: WorkerConfiguration, pool: PostgresPool, database: PostgresConfiguration,
                verifier: VerifyReceiptClient, localReceipts: AppReceiptVerifier? = nil, metrics: WorkerMetrics = WorkerMetrics(),
                calls: CallRecorder? = nil, logger: Logger) {
        self.localReceipts = localReceipts
        self.calls = calls
        self.configuration = configuration
        self.decision = configuration.decision
        let queue = JobQueue(pool: pool, lifecycle: configuration.lifecycle)
        self.queue = queue
        self.database = database
        self.verifier = verifier
        self.metrics = metrics
        self.logger = logger
        self.writer = OutcomeWriter(queue: queue, worker: configuration.name, configuration: configuration.writer,
                                    metrics: metrics, logger: logger)
        self.hedging = Mutex(configuration.hedging?.sized(forConcurrency: configuration.concurrency))
        self.gate = Mutex(WorkerGate(configuration: .init(
            name: configuration.name, concurrency: configuration.concurrency, maxClaimBatch: configuration.maxClaimBatch,
            configurationErrorPause: configuration.configurationErrorPause, secretMismatchJobs: configuration.secretMismatchJobs,
            breaker: configuration.breaker,
            canaryWindow: configuration.canaryWindow, sendPace: configuration.sendPace)))
    }

    /// Verifications in flight now.
    public var inFlight: Int { gate.withLock { $0.inFlight } }

    public func run() async throws {
        let listener = PostgresListener(configuration: database, channels: ["receiptq_jobs", OutageNotice.channel], logger: logger)
        logger.notice("worker started", metadata: ["worker": "\(configuration.name)", "concurrency": "\(configuration.concurrency)"])
        for environment in VerifyReceiptEnvironment.allCases { metrics.breakerMoved(environment: environment.rawValue, to: .closed) }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.writer.run() }
                group.addTask {
                    for await event in listener.events {
                        if case .notification(let notification) = event, notification.channel == OutageNotice.channel {
                            if let notice = OutageNotice(payload: notification.payload), await self.sentByAWorker(notification) {
                                self.handleNow(.noticeHeard(notice))
                            }
                        } else {
                            self.wake.signal()
                        }
                    }
                }
                await self.skipSlowStartIfTheFleetIsAnswered()
                while !self.gate.withLock({ $0.stopping }) && !Task.isCancelled { await self.handle(.tick) }
                await self.drain()
                listener.stop()
                self.writer.finish()
            }
        } onGracefulShutdown: {
            self.logger.notice("worker stopping: no more claims; finishing what is in flight")
            self.handleNow(.stop)
        }
        logger.notice("worker stopped", metadata: ["worker": "\(configuration.name)"])
    }

    /// A worker started into a fleet that heard from Apple in the last few seconds needs no
    /// slow-start round trip to learn that Apple is up (a cold fleet, or one in an outage, keeps it).
    private func skipSlowStartIfTheFleetIsAnswered() async {
        let answered = (try? await queue.pool.withConnection {
            try FleetAnsweredRecently.run(within: .seconds(10), environment: "Production", on: $0)
        }) ?? false
        if answered { handleNow(.fleetAnswered(.production)) }
    }

    // MARK: - The interpreter: each event under the gate's lock, its actions outside it

    /// Hands `event` to the gate and carries out what it answers, and the events that follow
    /// from those (a claim that came back, a chunk's pause over), until nothing follows. The
    /// gate's answer ends with at most one step that waits (claim, pause, wait); the others are
    /// carried out first and let go, so that no claimed receipt is held while this task waits.
    private func handle(_ event: WorkerGate<ContinuousClock.Instant>.Event) async {
        var next: WorkerGate<ContinuousClock.Instant>.Event? = event
        while next != nil {
            var actions: [WorkerGate<ContinuousClock.Instant>.Action]
            do {   // the event (a claim's leases, their receipts) is let go before anything waits
                let event = next!
                next = nil
                actions = gate.withLock { $0.handle(event, now: .now, pollInterval: configuration.pollInterval) }
            }
            let waiting = actions.last.flatMap { $0.waits ? $0 : nil }
            if waiting != nil { actions.removeLast() }
            for action in actions { perform(action) }
            actions = []
            switch waiting {
            case .claim(let wanted):
                do {
                    let started = Date()
                    let leases = try await queue.claim(limit: wanted, worker: configuration.name, lease: configuration.lease)
                    JobSpans.claimed(leases, from: started, to: Date(), worker: configuration.name)
                    next = .claimed(leases, of: wanted)
                } catch {
                    logger.warning("claim failed; retrying in 1 s", metadata: ["error": "\(error)"])
                    handleNow(.claimFailed(wanted: wanted))
                    try? await Task.sleep(for: .seconds(1))
                }
            case .pause(let pause):
                try? await Task.sleep(for: pause)
                if Task.isCancelled { handleNow(.stop) }
                next = .chunkDue
            case .wait(let timeout):
                await wake.wait(timeout: timeout)
            default:
                break
            }
        }
    }

    /// An event whose actions never wait (an answer, a notice, stop): carried out on the caller's
    /// task. Not inlined: a verification calls it, and its locals stay off that async frame.
    @inline(never)
    func handleNow(_ event: WorkerGate<ContinuousClock.Instant>.Event) {
        for action in gate.withLock({ $0.handle(event, now: .now, pollInterval: configuration.pollInterval) }) {
            perform(action)
        }
    }

    /// Carries out an action that needs no waiting.
    private func perform(_ action: WorkerGate<ContinuousClock.Instant>.Action) {
        switch action {
        case .send(let leases, let era):
            for lease in leases {
                // The verification takes the receipt from the handoff; the lease it waits with
                // carries none (the request body becomes the only copy while Apple answers).
                let receipt = ReceiptHandoff(lease.receiptData)
                let held = lease.withoutReceipt
                verifications.start(lease.id) { await self.verify(held, receipt: receipt, admittedIn: era) }
            }
        case .release(let leases):
            for lease in leases { writer.submit(FinishedAttempt(lease: lease, decision: .result(.release))) }
            logger.info("released the rest of a claim unsent (Apple failed its first requests, or stopping)",
                        metadata: ["released": "\(leases.count)"])
        case .record(let attempt):
            writer.submit(attempt)
        case .wake:
            wake.signal()
        case .meterInFlight(let count):
            metrics.inFlight.record(count)
        case .meterClaim(let count):
            metrics.claimBatch.record(count)
        case .skippedSlowStart:
            logger.info("the fleet heard from Apple in the last 10 s: starting at full rate")
        case .report(let report):
            carryOut(report)
        case .claim, .pause, .wait:
            assertionFailure("\(action) waits: the gate puts it last, and handle(_:) carries it out")
        }
    }

    /// Lets in-flight verifications finish until `shutdownDeadline`, then cancels the rest (each
    /// releases its job) and waits until every one has handed its job to the writer.
    private func drain() async {
        let deadline = ContinuousClock.now + configuration.shutdownDeadline
        // A cancelled worker (its service group is failing) does not wait out the deadline.
        while inFlight > 0 && ContinuousClock.now < deadline && !Task.isCancelled {
            await wake.wait(timeout: .milliseconds(100))
        }
        if inFlight > 0 {
            logger.notice("shutdown deadline reached; releasing unfinished jobs", metadata: ["jobs": "\(inFlight)"])
            verifications.cancelAll()
        }
        while inFlight > 0 || verifications.count > 0 {
            await wake.wait(timeout: .milliseconds(20))
        }
    }
}

extension JobLease {
    /// The lease a verification waits with: its receipt moved to the request body, which becomes
    /// the only copy while Apple answers.
    fileprivate var withoutReceipt: JobLease {
        var held = self
        held.receiptData = ""
        return held
    }
}
