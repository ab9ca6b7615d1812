import AppStore
import Logging
import Postgres
import ReceiptQueue

extension ReceiptWorker {
    /// Carries out what the gate decided about Apple: logs, metrics, the fleet notice.
    func carryOut(_ report: WorkerGate<ContinuousClock.Instant>.Report) {
        switch report {
        case .breakerMoved(let environment, let phase, let reportedBy):
            metrics.breakerMoved(environment: environment.rawValue, to: phase)
            calls?.breaker(.verifyReceipt(production: environment == .production), CallBreakerState(phase))
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

    /// Whether an outage notice came from a session of a `receiptq_worker` login
    /// (`NotifyingSession`): anyone may NOTIFY, and a spoofed notice would open the breakers.
    /// Ignored notices are counted, and logged at most once a minute.
    func sentByAWorker(_ notification: PostgresNotification) async -> Bool {
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
