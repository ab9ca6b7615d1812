/// Where a call out of a worker (or the scheduler) went, as `receiptq.call_minutes.target` names
/// it: Apple's verifyReceipt or App Store Server API in one environment, or a webhook receiver
/// (all endpoints together: their own breakers are per endpoint and not charted).
public enum CallTarget: String, Sendable, Hashable, CaseIterable, Comparable {
    case verifyReceiptProduction = "verify_receipt.production"
    case verifyReceiptSandbox = "verify_receipt.sandbox"
    case serverAPIProduction = "server_api.production"
    case serverAPISandbox = "server_api.sandbox"
    case webhooks

    /// verifyReceipt in production or the sandbox.
    public static func verifyReceipt(production: Bool) -> CallTarget {
        production ? .verifyReceiptProduction : .verifyReceiptSandbox
    }

    /// The App Store Server API in production or the sandbox.
    public static func serverAPI(production: Bool) -> CallTarget {
        production ? .serverAPIProduction : .serverAPISandbox
    }

    /// Apple's, not a webhook receiver's.
    public var isApple: Bool { self != .webhooks }

    public static func < (a: CallTarget, b: CallTarget) -> Bool { a.rawValue < b.rawValue }
}

/// A circuit breaker's state as `receiptq.call_minutes.breaker` keeps it; a minute keeps the worst seen.
public enum CallBreakerState: String, Sendable, Hashable, CaseIterable, Comparable {
    case closed
    case halfOpen = "half-open"
    case open

    var rank: Int { self == .closed ? 0 : self == .halfOpen ? 1 : 2 }
    public static func < (a: CallBreakerState, b: CallBreakerState) -> Bool { a.rank < b.rank }
}
