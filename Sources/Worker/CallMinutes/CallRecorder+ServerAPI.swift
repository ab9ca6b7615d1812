import AppStoreServerAPI
import ReceiptQueue

/// Every App Store Server API call of a process's clients, summed per minute (`receiptq.call_minutes`).
extension CallRecorder: ServerAPICallObserver {
    public func called(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, status: Int?, duration: Duration) {
        record(.serverAPI(production: environment == .production), took: duration, failed: Self.isFailure(status: status))
    }

    /// No answer, Apple's own trouble (5xx), a rate limit (429) or a refused token (401, 403): the
    /// calls an operator counts as failed. A 404 for an unknown transaction is an answer.
    static func isFailure(status: Int?) -> Bool {
        guard let status else { return true }
        return status >= 500 || [401, 403, 429].contains(status)
    }
}

extension CallBreakerState {
    /// A breaker's phase as the per-minute sums keep it.
    init<Instant>(_ phase: CircuitBreaker<Instant>.Phase) {
        switch phase {
        case .closed: self = .closed
        case .halfOpen: self = .halfOpen
        case .open: self = .open
        }
    }
}
