import Logging
import ReceiptQueue

extension ReceiptWorker {
    /// Logs, meters and announces what the gate decided about Apple (`WorkerGate.Report`).
    func log(_ report: WorkerGate<ContinuousClock.Instant>.Report) {
        switch report {
        case .breakerMoved(let environment, let phase, let reportedBy):
            metrics.breaker(environment.rawValue).record(phase.gaugeValue)
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
