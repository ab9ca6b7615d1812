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
    private let queue: JobQueue
    private let database: PostgresConfiguration
    let verifier: VerifyReceiptClient
    /// Verifies each receipt on this machine before Apple is asked (`LocalReceiptDecision`); nil: off.
    private let localReceipts: AppReceiptVerifier?
    private let writer: OutcomeWriter
    private let decision: AttemptDecision
    let metrics: WorkerMetrics
    private let logger: Logger
    /// Every decision about claiming and talking to Apple; this class only carries them out.
    let gate: Mutex<WorkerGate<ContinuousClock.Instant>>
    private let wake = WakeSignal()
    /// When an ignored (untrusted) outage notice was last logged.
    private let ignoredNoticeLog = Mutex<ContinuousClock.Instant?>(nil)
    /// When a straggler is asked again (nil: never).
    let hedging: Mutex<HedgePolicy?>
    /// The verifications in flight.
    private let verifications = VerificationTasks()

    /// - Parameters:
    ///   - pool: connections for claims and outcome writes (2 are plenty).
    ///   - database: for the dedicated LISTEN connection.
    public init(configuration: WorkerConfiguration, pool: PostgresPool, database: PostgresConfiguration,
                verifier: VerifyReceiptClient, localReceipts: AppReceiptVerifier? = nil, metrics: WorkerMetrics = WorkerMetrics(),
                logger: Logger) {
        self.localReceipts = localReceipts
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
        self.hedging = Mutex(configuration.hedging)
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
                                self.perform(self.gate.withLock { $0.heard(notice, now: .now) })
                            }
                        } else {
                            self.wake.signal()
                        }
                    }
                }
                await self.skipSlowStartIfTheFleetIsAnswered()
                await self.claimAndVerify()
                listener.stop()
                self.writer.finish()
            }
        } onGracefulShutdown: {
            self.logger.notice("worker stopping: no more claims; finishing what is in flight")
            self.gate.withLock { $0.stop() }
            self.wake.signal()
        }
        logger.notice("worker stopped", metadata: ["worker": "\(configuration.name)"])
    }

    /// A worker started into a fleet that heard from Apple in the last few seconds needs no
    /// slow-start round trip to learn that Apple is up (a cold fleet, or one in an outage, keeps it).
    private func skipSlowStartIfTheFleetIsAnswered() async {
        let answered = (try? await queue.pool.withConnection {
            try FleetAnsweredRecently.run(within: .seconds(10), environment: "Production", on: $0)
        }) ?? false
        if answered, gate.withLock({ $0.fleetAnswered(.production) }) {
            logger.info("the fleet heard from Apple in the last 10 s: starting at full rate")
        }
    }

    private func claimAndVerify() async {
        while !gate.withLock({ $0.stopping }) && !Task.isCancelled {
            let wanted = gate.withLock { $0.slotsToClaim(now: .now) }
            guard wanted > 0 else {
                await wake.wait(timeout: configuration.pollInterval)
                continue
            }
            let leases: [JobLease]
            do {
                leases = try await queue.claim(limit: wanted, worker: configuration.name, lease: configuration.lease)
            } catch {
                logger.warning("claim failed; retrying in 1 s", metadata: ["error": "\(error)"])
                gate.withLock { $0.claimFailed(wanted: wanted) }
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            metrics.claimBatch.record(leases.count)
            let (plan, era) = gate.withLock { ($0.claimed(leases.count, of: wanted, now: .now), $0.era) }
            metrics.inFlight.record(inFlight)
            await send(leases, plan, admittedIn: era)
            if leases.count < wanted {
                await wake.wait(timeout: configuration.pollInterval)   // queue drained: wait for NOTIFY
            }
        }
        await drain()
    }

    /// Sends a claim batch as the gate planned it: in chunks, checking between them that the
    /// breaker is still closed (`CanaryPolicy`); what is left when it opens, or when the worker
    /// stops, is released unsent. `era`: the gate's era the claim was admitted in.
    private func send(_ leases: [JobLease], _ plan: WorkerGate<ContinuousClock.Instant>.SendPlan, admittedIn era: Int) async {
        guard case .chunks(let chunk, var pause, let pace) = plan else {
            release(leases)
            return
        }
        var rest = leases[...]
        while !rest.isEmpty {
            let count = min(chunk, rest.count)
            gate.withLock { $0.sendingChunk(count, now: .now) }
            for lease in rest.prefix(chunk) {
                // The verification takes the receipt from the handoff; the lease it waits with
                // carries none (the request body becomes the only copy while Apple answers).
                let receipt = ReceiptHandoff(lease.receiptData)
                let held = lease.withoutReceipt
                verifications.start(lease.id) { await self.verify(held, receipt: receipt, admittedIn: era) }
            }
            rest = rest.dropFirst(chunk)
            guard !rest.isEmpty else { return }
            try? await Task.sleep(for: pause)
            pause = pace
            if Task.isCancelled || !gate.withLock({ $0.maySendMore }) {
                release(Array(rest))
                return
            }
        }
    }

    /// Leases claimed but not sent (the breaker opened while their batch went out, or the worker
    /// is stopping): back to the queue at once, their attempt given back.
    private func release(_ leases: [JobLease]) {
        for lease in leases { writer.submit(FinishedAttempt(lease: lease, decision: .result(.release))) }
        let remaining = gate.withLock { gate in
            gate.released(leases.count)
            return gate.inFlight
        }
        metrics.inFlight.record(remaining)
        logger.info("released the rest of a claim unsent (Apple failed its first requests, or stopping)", metadata: ["released": "\(leases.count)"])
    }

    /// One verification whose era ended before its request went (the breaker opened, a 21004
    /// pause began, or stopping): its job goes back at once, its attempt given back. Not logged
    /// one by one (a batch's worth may end together); `release(_:)` logs whole chunks.
    private func releaseUnsent(_ lease: JobLease) {
        writer.submit(FinishedAttempt(lease: lease, decision: .result(.release)))
        let remaining = gate.withLock { gate in
            gate.released(1)
            return gate.inFlight
        }
        metrics.inFlight.record(remaining)
        wake.signal()
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

    /// One verification, in three steps: the local receipt check and the request body, Apple's
    /// answer, and the verdict handed to the writer with the slot given back. The steps before and
    /// after the await are functions of their own (not inlined) so that their locals stay off
    /// this async frame, which lives as long as Apple takes, once per verification in flight.
    private func verify(_ lease: JobLease, receipt: ReceiptHandoff, admittedIn era: Int) async {
        let sent = ContinuousClock.now
        guard let request = await prepareRequest(lease, receipt: receipt) else {
            finishedLocally()
            return
        }
        guard gate.withLock({ $0.maySend(admittedIn: era) }) else {
            releaseUnsent(lease)
            return
        }
        let result: VerificationResult?
        do {
            let start = lease.appleEnvironment.flatMap(VerifyReceiptEnvironment.init(rawValue:)) ?? .production
            result = try await verifyHedged(request.body, startingAt: start)
        } catch {
            result = nil   // shutdown: not attempted
        }
        finished(lease, result, sentAt: sent, verifiedLocally: request.verifiedLocally)
    }

    /// The request body, and whether this machine verified the receipt; nil when the local check
    /// settled the job (rejected without asking Apple).
    @inline(never)
    private func prepareRequest(_ lease: JobLease, receipt: ReceiptHandoff) async -> (body: HTTPBody, verifiedLocally: Bool)? {
        var receiptData = receipt.take()
        let check = await LocalReceiptCheck.run(localReceipts, receiptData: receiptData)
        let locallyValid: Bool
        switch LocalReceiptDecision.decide(check, transactionID: lease.transactionID, verifier: .verifyReceipt) {
        case .reject(let reason):
            metrics.localReceiptChecks("rejected").increment()
            writer.submit(FinishedAttempt(lease: lease, decision: .result(.rejected(reason: reason))))
            return nil   // Apple is not asked: the gate frees the slot and the breaker's admission
        case .askApple(let valid):
            locallyValid = valid
            if localReceipts != nil { metrics.localReceiptChecks(valid ? "verified" : "unconfirmed").increment() }
        case .lookUp, .resubmit:
            locallyValid = false   // not produced for verifyReceipt
        }
        let body = verifier.requestBody(receiptData: receiptData)
        receiptData = ""   // the body is the only copy from here
        return (body, locallyValid)
    }

    /// The local check settled the job: the slot is free, and Apple's breaker saw nothing.
    @inline(never)
    private func finishedLocally() {
        let remaining = gate.withLock { gate in
            gate.decidedLocally()
            return gate.inFlight
        }
        metrics.inFlight.record(remaining)
        wake.signal()
    }

    /// Apple answered (or the worker is stopping: `result` nil): the verdict goes to the writer,
    /// then the gate learns how Apple did and frees the slot.
    @inline(never)
    private func finished(_ lease: JobLease, _ result: VerificationResult?, sentAt sent: ContinuousClock.Instant, verifiedLocally: Bool) {
        if let result {
            metrics.appleLatency.recordNanoseconds(Int64(result.latency.seconds * 1e9))
            metrics.appleRequests(result.environment.rawValue).increment(by: result.calls)
            if case .retryLater(.tls) = result.outcome { metrics.appleTLSFailures(result.environment.rawValue).increment() }
            if logger.logLevel <= .debug {
                var metadata = lease.logMetadata
                metadata["environment"] = .string(result.environment.rawValue)
                metadata["apple_calls"] = .stringConvertible(result.calls)
                metadata["apple_seconds"] = .string(String(format: "%.3f", result.latency.seconds))
                logger.debug("Apple answered verifyReceipt", metadata: metadata)
            }
            var random = SystemRandomNumberGenerator()
            let healthy = gate.withLock { $0.phase(result.environment) == .closed }
            writer.submit(decision.decide(result, lease: lease, now: Date(), receiptVerifiedLocally: verifiedLocally,
                                          appleHealthy: healthy, using: &random))
        } else {
            writer.submit(FinishedAttempt(lease: lease, decision: .result(.release)))
        }
        let (actions, remaining) = gate.withLock { gate in
            (gate.finished(result, job: lease.id, sentAt: sent, now: .now), gate.inFlight)
        }
        metrics.inFlight.record(remaining)
        perform(actions)
        wake.signal()
    }

    /// Carries out the gate's actions: logs, metrics, the fleet notice.
    private func perform(_ actions: [WorkerGate<ContinuousClock.Instant>.Action]) {
        for action in actions {
            switch action {
            case .breakerMoved(let environment, let phase, let reportedBy):
                metrics.breakerMoved(environment: environment.rawValue, to: phase)
                if let reportedBy {
                    logger.warning("Apple \(environment.rawValue) circuit breaker \(phase.rawValue): another worker saw Apple failing",
                                   metadata: ["reported_by": "\(reportedBy)"])
                } else {
                    logger.warning("Apple \(environment.rawValue) circuit breaker \(phase.rawValue)")
                }
            case .announceOutage(let environment):
                announce(OutageNotice(environment: environment.rawValue, worker: configuration.name))
            case .alert(.tls(let error), let heldBack):
                logger.error("""
                    Apple's TLS certificate did not verify: check the CA bundle (--ca-bundle) and this host's clock; \
                    jobs are retried with backoff, the circuit breaker stays closed
                    """,
                             metadata: ["error": "\(error.prefix(200))", "similar_answers_not_logged": "\(heldBack)"])
            case .alert(let reason, let heldBack):
                logger.error("Apple answered something this version does not handle; retrying, never rejecting — check for a receiptq update",
                             metadata: ["answer": "\(reason.summary)", "similar_answers_not_logged": "\(heldBack)"])
            case .secretRefused(let job, let heldBack):
                logger.error("Apple refused our shared secret (21004) for one receipt; retrying it (another app's receipt, or a secret being rotated?)",
                             metadata: ["job": "\(job)", "similar_answers_not_logged": "\(heldBack)"])
            case .configurationErrorPause(let pause):
                logger.critical("""
                    Apple answered 21004 for several receipts: the shared secret is wrong (check RECEIPTQ_SHARED_SECRET); \
                    not claiming for a while, then one receipt at a time until Apple accepts it
                    """,
                                metadata: ["pause": "\(pause)"])
            }
        }
    }

    /// Whether an outage notice came from a session of a `receiptq_worker` login
    /// (`NotifyingSession`): anyone may NOTIFY, and a spoofed notice would open the breakers.
    /// Ignored notices are counted, and logged at most once a minute.
    private func sentByAWorker(_ notification: PostgresNotification) async -> Bool {
        let pid = notification.senderPID
        let trusted = (try? await queue.pool.withConnection { try NotifyingSession.isMember(pid: pid, of: .worker, on: $0) }) ?? false
        metrics.outageNotices(trusted ? "heard" : "ignored").increment()
        let shouldLog = !trusted && ignoredNoticeLog.withLock { last -> Bool in
            let now = ContinuousClock.now
            guard last.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
            last = now
            return true
        }
        if shouldLog {
            logger.warning("ignored an Apple outage notice from a database session that is not a receiptq_worker login",
                           metadata: ["sender_pid": "\(pid)"])
        }
        return trusted
    }

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
