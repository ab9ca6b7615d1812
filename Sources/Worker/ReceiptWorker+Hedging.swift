import AppStore
import HTTPClient
import Synchronization

extension ReceiptWorker {
    /// Verifies a receipt, asking Apple a second time when the first request is still unanswered
    /// past the recent p99 (`HedgePolicy`), while the breaker is closed and the hedge budget
    /// allows; the first conclusive answer wins (`HedgePolicy.endsTheWait`) and the other request
    /// is aborted. The HTTP engine runs both requests and the timer (`HTTPHedge`): one task per
    /// verification, hedged or not.
    /// verifyReceipt is an idempotent read, so two answers can only agree or differ in timing.
    /// `startingAt`: the environment an earlier attempt ended at (a sandbox receipt's retry).
    /// `attempt`: the job's try; a paired one (`HedgePolicy.pairedAttempts`, and while the
    /// backlog is drained `idlePairedAttempts`) sends both requests at once, when the breaker is
    /// closed, without spending a credit.
    func verifyHedged(_ body: HTTPBody, startingAt: VerifyReceiptEnvironment = .production, attempt: Int = 1,
                      backlogDrained: Bool = false) async throws -> VerificationResult {
        guard let plan = hedging.withLock({ $0?.plan(attempt: attempt, backlogDrained: backlogDrained) }) else {
            return recordLatency(try await verifier.verify(body: body, startingAt: startingAt))
        }
        let (hedge, sent) = makeHedge(plan)
        let result = try await verifier.verify(body: body, startingAt: startingAt, hedge: hedge)
        // A hedged verification's latency is the first request's wait plus the hedge's: it would
        // teach the p99 the hedge delay itself. Only unhedged answers are kept.
        return sent.wasSent ? result : recordLatency(result)
    }

    /// The engine's instructions for this verification's straggler, and where it records that the
    /// hedge went. Not inlined: the closures' set-up stays off `verifyHedged`'s async frame.
    @inline(never)
    private func makeHedge(_ plan: HedgePolicy.Plan) -> (HTTPHedge, HedgeSent) {
        let sent = HedgeSent()
        // A request still out past the hedge delay while the other met Apple's trouble is taken
        // for hung: the verification ends with that trouble and is retried, not waited out.
        let (delay, paired, stragglerAfter): (Duration, Bool, Duration) = switch plan {
        case .hedgeAfter(let delay): (delay, false, delay)
        case .paired(let stragglerAfter): (.zero, true, stragglerAfter)
        }
        let hedge = HTTPHedge(after: delay, stragglerAfter: stragglerAfter, mayHedge: { [self] in
            guard paired ? gate.withLock({ $0.mayHedge }) : mayHedge() else { return false }
            sent.mark()
            metrics.hedges.increment()
            return true
        }, endsTheWait: HedgePolicy.endsTheWait)
        return (hedge, sent)
    }

    /// Engine thread, when a straggler is due: the gate allows one more request (`WorkerGate.mayHedge`)
    /// and a hedge credit to spend.
    private func mayHedge() -> Bool {
        guard gate.withLock({ $0.mayHedge }) else {
            if logger.logLevel <= .debug { logger.debug("straggler not hedged: the breaker is not closed") }
            return false
        }
        guard hedging.withLock({ $0?.mayHedge() ?? false }) else {
            if logger.logLevel <= .debug { logger.debug("straggler not hedged: no hedge credit left") }
            return false
        }
        return true
    }

    private func recordLatency(_ result: VerificationResult) -> VerificationResult {
        switch result.outcome {
        case .valid, .reject: hedging.withLock { $0?.answered(after: result.latency, requests: result.calls) }
        case .retryLater, .timedOut, .configurationError: break
        }
        return result
    }
}

/// Whether a verification's hedge went out (set on the engine thread, read by the verification).
private final class HedgeSent: Sendable {
    private let sent = Mutex(false)

    func mark() { sent.withLock { $0 = true } }

    var wasSent: Bool { sent.withLock { $0 } }
}
