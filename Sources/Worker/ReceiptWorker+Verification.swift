import AppStore
import Foundation
import HTTPClient
import ReceiptQueue

extension ReceiptWorker {
    /// One verification, in three steps: the local receipt check and the request body, Apple's
    /// answer, and the event that hands its verdict over and gives its slot back. The steps before
    /// and after the await are functions of their own (not inlined) so that their locals stay off
    /// this async frame, which lives as long as Apple takes, once per verification in flight.
    /// `era`: the gate's era the claim was admitted in; checked once more just before the
    /// request goes (this task may start late on a busy machine).
    func verify(_ lease: JobLease, receipt: ReceiptHandoff, admittedIn era: Int) async {
        let sent = ContinuousClock.now
        guard let request = await prepareRequest(lease, receipt: receipt) else { return }
        let (maySend, backlogDrained) = gate.withLock { ($0.maySend(admittedIn: era), $0.backlogDrained) }
        guard maySend else { return notSent(lease) }
        let result: VerificationResult?
        do {
            let start = lease.appleEnvironment.flatMap(VerifyReceiptEnvironment.init(rawValue:)) ?? .production
            result = try await verifyHedged(request.body, startingAt: start, attempt: lease.attempt, backlogDrained: backlogDrained)
        } catch {
            result = nil   // shutdown: not attempted
        }
        answered(lease, result, sentAt: sent, verifiedLocally: request.verifiedLocally)
    }

    /// The era this verification was admitted in ended before its request went: its job goes
    /// back. Not inlined, like the steps around the await: the gate's event stays off the frame.
    @inline(never)
    func notSent(_ lease: JobLease) {
        handleNow(.unsent(lease))
    }

    /// The request body, and whether this machine verified the receipt; nil when the local check
    /// settled the job (rejected without asking Apple: handed to the gate here, so that the
    /// verification's async frame holds only the body).
    @inline(never)
    func prepareRequest(_ lease: JobLease, receipt: ReceiptHandoff) async -> (body: HTTPBody, verifiedLocally: Bool)? {
        var receiptData = receipt.take()
        let check = await LocalReceiptCheck.run(localReceipts, receiptData: receiptData)
        let locallyValid: Bool
        switch LocalReceiptDecision.decide(check, transactionID: lease.transactionID, verifier: .verifyReceipt) {
        case .reject(let reason):
            metrics.localReceiptChecks("rejected").increment()
            handleNow(.decidedLocally(FinishedAttempt(lease: lease, decision: .result(.rejected(reason: reason)))))   // Apple is not asked
            return nil
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

    /// Apple answered (or the worker is stopping: `result` nil): the verdict and the answer go to
    /// the gate, which records the one and learns from the other.
    @inline(never)
    func answered(_ lease: JobLease, _ result: VerificationResult?, sentAt sent: ContinuousClock.Instant, verifiedLocally: Bool) {
        guard let result else { return handleNow(.abandoned(lease)) }
        metrics.appleLatency.recordNanoseconds(Int64(result.latency.seconds * 1e9))
        metrics.appleRequests(result.environment.rawValue).increment(by: result.calls)
        if case .retryLater(.tls) = result.outcome { metrics.appleTLSFailures(result.environment.rawValue).increment() }
        var random = SystemRandomNumberGenerator()
        let healthy = gate.withLock { $0.phase(result.environment) == .closed }
        let attempt = decision.decide(result, lease: lease, now: Date(), receiptVerifiedLocally: verifiedLocally,
                                      appleHealthy: healthy, using: &random)
        if let calls {
            let trouble: Bool
            switch result.outcome {
            case .valid, .reject, .configurationError: trouble = false
            case .retryLater(let reason): trouble = reason.isAppleTrouble
            case .timedOut: trouble = true
            }
            calls.record(.verifyReceipt(production: result.environment == .production), took: result.latency, failed: trouble)
        }
        let end = Date()
        JobSpans.appleRequest("apple.verifyReceipt", lease: lease, from: end.addingTimeInterval(-result.latency.seconds), to: end,
                              environment: result.environment.rawValue, status: attempt.appleStatus, calls: result.calls,
                              failed: attempt.appleStatus == nil)
        if logger.logLevel <= .debug {
            var metadata = lease.logMetadata
            metadata["environment"] = .string(result.environment.rawValue)
            metadata["apple_calls"] = .stringConvertible(result.calls)
            metadata["apple_seconds"] = .string(String(format: "%.3f", result.latency.seconds))
            // Apple's status (none for a timeout, a dropped connection or an HTTP error page).
            metadata["apple_status"] = .string(attempt.appleStatus.map(String.init) ?? "none")
            logger.debug("Apple answered verifyReceipt", metadata: metadata)
        }
        handleNow(.answered(result, attempt: attempt, sentAt: sent))
    }
}
