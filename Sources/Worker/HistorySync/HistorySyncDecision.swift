import AppStoreServerAPI
import Foundation
import ReceiptQueue

/// How a history walk that stopped on an error ends. Pure. Apple not knowing the transaction in
/// the sync's environment is an answer (`failed`, kept for ops); a refused token or a bad request
/// cannot get better by itself but is our configuration, so it is retried slowly (an operator
/// fixes the key, the walk resumes); Apple's trouble and the rate budget are retried with backoff
/// from the revision kept, never restarting the walk.
public struct HistorySyncDecision: Sendable, Hashable {
    public var retry: NotificationRetryPolicy

    /// Default: 30 s doubling to 30 min.
    public init(retry: NotificationRetryPolicy = NotificationRetryPolicy(initialDelay: .seconds(30), maxDelay: .seconds(1800),
                                                                         maxAttempts: HistorySyncLifecycle().maxAttempts)) {
        self.retry = retry
    }

    public func ending(for error: ServerAPIError, attempt: Int, now: Date = Date()) -> FinishHistorySync.Ending {
        let reason = error.description
        switch error.kind {
        case .transactionNotFound, .notFound:
            return .failed("Apple knows no such transaction in this environment: \(reason)")
        case .rateLimited(let until):
            let wait = until.map { max(1, $0.timeIntervalSince(now)) } ?? 60
            return .retry(after: .milliseconds(Int64(wait * 1000)), error: reason)
        case .unauthorized, .invalidRequest:
            return .retry(after: retry.maxDelay, error: reason)
        case .retryable, .unexpectedStatus, .unreadableResponse, .timeout, .network:
            return .retry(after: retry.delay(after: attempt) ?? retry.maxDelay, error: reason)
        }
    }
}
