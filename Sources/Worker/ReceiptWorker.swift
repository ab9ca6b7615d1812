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
    let logger: Logger
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
        self.queue = JobQueue(pool: pool, lifecycle: configuration.lifecycle)
        self.database = database
        self.verifier = verifier
        self.metrics = metrics
        self.logger = logger
        self.writer = OutcomeWriter(pool: pool, worker: configuration.name, lifecycle: configuration.lifecycle,
                                    configuration: configuration.writer, metrics: metrics, logger: logger)
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
    /// from those (a claim that came back, a chunk's pause over), until nothing follows.
    private func handle(_ event: WorkerGate<ContinuousClock.Instant>.Event) async {
        var next: WorkerGate<ContinuousClock.Instant>.Event? = event
        while let event = next {
            next = nil
            let actions = gate.withLock { $0.handle(event, now: .now, pollInterval: configuration.pollInterval) }
            for action in actions {
                switch action {
                case .claim(let wanted):
                    do {
                        next = .claimed(try await queue.claim(limit: wanted, worker: configuration.name, lease: configuration.lease), of: wanted)
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
                    perform([action])
                }
            }
        }
    }

    /// Carries out the actions that need no waiting.
    private func perform(_ actions: [WorkerGate<ContinuousClock.Instant>.Action]) {
        for action in actions {
            switch action {
            case .send(let leases):
                for lease in leases {
                    // The verification takes the receipt from the handoff; the lease it waits with
                    // carries none (the request body becomes the only copy while Apple answers).
                    let receipt = ReceiptHandoff(lease.receiptData)
                    let held = lease.withoutReceipt
                    verifications.start(lease.id) { await self.verify(held, receipt: receipt) }
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
            case .meterAnswer(let environment, let latency, let calls, let tlsFailure):
                metrics.appleLatency.recordNanoseconds(Int64(latency.seconds * 1e9))
                metrics.appleRequests(environment.rawValue).increment(by: calls)
                if tlsFailure { metrics.appleTLSFailures(environment.rawValue).increment() }
            case .skippedSlowStart:
                logger.info("the fleet heard from Apple in the last 10 s: starting at full rate")
            case .report(let report):
                log(report)
            case .claim, .pause, .wait:
                assertionFailure("\(action) is carried out by handle(_:)")
            }
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

    // MARK: - One verification

    /// One verification, in three steps: the local receipt check and the request body, Apple's
    /// answer, and the event that hands its verdict over and gives its slot back. The steps before
    /// and after the await are functions of their own (not inlined) so that their locals stay off
    /// this async frame, which lives as long as Apple takes, once per verification in flight.
    private func verify(_ lease: JobLease, receipt: ReceiptHandoff) async {
        let sent = ContinuousClock.now
        let request: HTTPBody, verifiedLocally: Bool
        switch await prepareRequest(lease, receipt: receipt) {
        case .settled(let attempt):
            handleNow(.decidedLocally(attempt))
            return
        case .ask(let body, let locally):
            (request, verifiedLocally) = (body, locally)
        }
        let result: VerificationResult?
        do {
            result = try await verifyHedged(request)
        } catch {
            result = nil   // shutdown: not attempted
        }
        answered(lease, result, sentAt: sent, verifiedLocally: verifiedLocally)
    }

    /// What the local check makes of a receipt: settled here (rejected without asking Apple), or
    /// the request body to send, and whether this machine verified the receipt.
    private enum Prepared {
        case settled(FinishedAttempt)
        case ask(HTTPBody, verifiedLocally: Bool)
    }

    @inline(never)
    private func prepareRequest(_ lease: JobLease, receipt: ReceiptHandoff) async -> Prepared {
        var receiptData = receipt.take()
        let check = await LocalReceiptCheck.run(localReceipts, receiptData: receiptData)
        let locallyValid: Bool
        switch LocalReceiptDecision.decide(check, transactionID: lease.transactionID, verifier: .verifyReceipt) {
        case .reject(let reason):
            metrics.localReceiptChecks("rejected").increment()
            return .settled(FinishedAttempt(lease: lease, decision: .result(.rejected(reason: reason))))   // Apple is not asked
        case .askApple(let valid):
            locallyValid = valid
            if localReceipts != nil { metrics.localReceiptChecks(valid ? "verified" : "unconfirmed").increment() }
        case .lookUp, .resubmit:
            locallyValid = false   // not produced for verifyReceipt
        }
        let body = verifier.requestBody(receiptData: receiptData)
        receiptData = ""   // the body is the only copy from here
        return .ask(body, verifiedLocally: locallyValid)
    }

    /// Apple answered (or the worker is stopping: `result` nil): the verdict and the answer go to
    /// the gate, which records the one and learns from the other.
    @inline(never)
    private func answered(_ lease: JobLease, _ result: VerificationResult?, sentAt sent: ContinuousClock.Instant, verifiedLocally: Bool) {
        guard let result else { return handleNow(.abandoned(lease)) }
        var random = SystemRandomNumberGenerator()
        let attempt = decision.decide(result, lease: lease, now: Date(), receiptVerifiedLocally: verifiedLocally, using: &random)
        handleNow(.answered(result, attempt: attempt, sentAt: sent))
    }

    /// An event whose actions never wait (an answer, a notice, stop): carried out on the caller's task.
    private func handleNow(_ event: WorkerGate<ContinuousClock.Instant>.Event) {
        perform(gate.withLock { $0.handle(event, now: .now, pollInterval: configuration.pollInterval) })
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
    func announce(_ notice: OutageNotice) {
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
