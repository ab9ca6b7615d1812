import AppStore
import Foundation
import HTTPClient
import Synchronization

extension ReceiptWorker {
    /// Verifies a receipt, asking Apple a second time when the first request is still unanswered
    /// past the recent p99 (`HedgePolicy`), while the breaker is closed and the hedge budget
    /// allows (both send the same `body`); the first conclusive answer wins and the other request
    /// is cancelled (libcurl aborts it).
    /// verifyReceipt is an idempotent read, so two answers can only agree or differ in timing.
    func verifyHedged(_ body: HTTPBody) async throws -> VerificationResult {
        let verifier = self.verifier
        guard let delay = hedging.withLock({ $0?.firstSent() }) else {
            return recordLatency(try await verifier.verify(body: body))
        }
        let hedge = HedgeState()
        return try await withThrowingTaskGroup(of: VerificationResult?.self) { group in
            group.addTask { try await verifier.verify(body: body) }
            group.addTask {
                try await Task.sleep(for: delay)
                guard hedge.send(if: self.mayHedge()) else { return nil }
                self.metrics.hedges.increment()
                return try await verifier.verify(body: body)
            }
            // The first conclusive answer wins. Apple's trouble (a 503, a timeout) from one request
            // while a hedge is out is not an answer: a hedge that met a 503 ended a hung first
            // request's wait with a retry (time to verdict 20 s where 14 s was due). Before a
            // hedge went, any answer ends the wait (a fast 503 is retried, not hedged).
            var inconclusive: VerificationResult?
            var outstanding = 2
            while let next = try await group.next() {
                outstanding -= 1
                guard let result = next else { continue }   // no hedge: wait for the first request
                if inconclusive == nil && !HedgePolicy.endsTheWait(result.outcome, otherRequestOut: outstanding > 0 && hedge.wasSent) {
                    inconclusive = result
                    continue
                }
                group.cancelAll()
                return recordLatency(result)
            }
            if let inconclusive { return inconclusive }
            throw CancellationError()
        }
    }

    private func mayHedge() -> Bool {
        guard gate.withLock({ $0.phase(.production) == .closed }) else { return false }
        return hedging.withLock { $0?.mayHedge() ?? false }
    }

    private func recordLatency(_ result: VerificationResult) -> VerificationResult {
        if case .valid = result.outcome { hedging.withLock { $0?.answered(after: result.latency) } }
        if case .reject = result.outcome { hedging.withLock { $0?.answered(after: result.latency) } }
        return result
    }
}

/// Whether a verification's hedge went out (the hedge task and the waiting loop both ask).
private final class HedgeState: Sendable {
    private let sent = Mutex(false)

    /// Records `decision` and returns it.
    func send(if decision: Bool) -> Bool {
        sent.withLock { $0 = decision }
        return decision
    }

    var wasSent: Bool { sent.withLock { $0 } }
}
