import AppStore
import Foundation
import HTTPClient

extension ReceiptWorker {
    /// Verifies a receipt, asking Apple a second time when the first request is still unanswered
    /// past the recent p99 (`HedgePolicy`), while the breaker is closed and the hedge budget
    /// allows (both send the same `body`); the first answer wins and the other request is cancelled (libcurl aborts it).
    /// verifyReceipt is an idempotent read, so two answers can only agree or differ in timing.
    func verifyHedged(_ body: HTTPBody) async throws -> VerificationResult {
        let verifier = self.verifier
        guard let delay = hedging.withLock({ $0?.firstSent() }) else {
            return recordLatency(try await verifier.verify(body: body))
        }
        return try await withThrowingTaskGroup(of: VerificationResult?.self) { group in
            group.addTask { try await verifier.verify(body: body) }
            group.addTask {
                try await Task.sleep(for: delay)
                guard self.mayHedge() else { return nil }
                self.metrics.hedges.increment()
                return try await verifier.verify(body: body)
            }
            while let next = try await group.next() {
                guard let result = next else { continue }   // no hedge: wait for the first request
                group.cancelAll()
                return recordLatency(result)
            }
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
