import AppStoreServerAPI
import Foundation
import ReceiptQueue
import Testing
import Worker

/// How a history walk that stopped on Apple's answer ends: not found is an answer (failed, kept);
/// our configuration is retried slowly; Apple's trouble with backoff; a 429 waits for Apple's time.
@Suite("History sync decision: Apple's errors to the walk's end")
struct HistorySyncDecisionTests {
    let decision = HistorySyncDecision()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func notFoundEndsTheSyncFailed() {
        guard case .failed(let reason) = decision.ending(for: ServerAPIError(.transactionNotFound, httpStatus: 404, errorCode: 4_040_010),
                                                         attempt: 1, now: now) else {
            Issue.record("not failed")
            return
        }
        #expect(reason.contains("no such transaction"))
    }

    @Test(arguments: [ServerAPIError.Kind.retryable, .timeout, .network, .unreadableResponse, .unexpectedStatus])
    func applesTroubleIsRetriedWithBackoff(_ kind: ServerAPIError.Kind) {
        let first = decision.ending(for: ServerAPIError(kind), attempt: 1, now: now)
        let third = decision.ending(for: ServerAPIError(kind), attempt: 3, now: now)
        #expect(first == .retry(after: .seconds(30), error: ServerAPIError(kind).description))
        #expect(third == .retry(after: .seconds(120), error: ServerAPIError(kind).description))
    }

    @Test func rateLimitedWaitsUntilApplesTime() {
        let ending = decision.ending(for: ServerAPIError(.rateLimited(until: now.addingTimeInterval(42))), attempt: 1, now: now)
        guard case .retry(let after, _) = ending else {
            Issue.record("not a retry")
            return
        }
        #expect(after == .seconds(42))
    }

    @Test(arguments: [ServerAPIError.Kind.unauthorized, .invalidRequest])
    func ourConfigurationIsRetriedSlowly(_ kind: ServerAPIError.Kind) {
        guard case .retry(let after, _) = decision.ending(for: ServerAPIError(kind), attempt: 1, now: now) else {
            Issue.record("not a retry")
            return
        }
        #expect(after == .seconds(1800))
    }
}
