/// A second request for a straggler: when the first is still unanswered `after` it went out, the
/// engine asks `mayHedge` and, if allowed, sends the same request again beside it; the first
/// answer that ends the wait is returned and the other request is aborted. When the hedge's own
/// answer does not end the wait while the straggler is still out, `mayHedge` is asked once more
/// and one more request goes at once (at most two hedges per request; none for a pair sent at
/// once, `after` zero).
///
/// Only for idempotent requests (verifyReceipt, the Server API's reads). It lives in the engine
/// so that a hedged request still costs one awaiting task: as a task group (the request, and a
/// timer task that sent the hedge) it cost three tasks per verification — 84 MB of task memory
/// at 5,000 in flight, and child-task bookkeeping was 8% of a worker's CPU.
public struct HTTPHedge: Sendable {
    /// How long the first request may go unanswered before a hedge is considered.
    public var after: Duration
    /// Asked on the engine thread once `after` has passed with the first request still out:
    /// whether to send the hedge now (the caller's budget and breaker). Must be quick.
    public var mayHedge: @Sendable () -> Bool
    /// Asked on the engine thread for an answer that came while the other request is still out:
    /// whether it ends the wait. `false` waits for the other; when that one ends too, its answer
    /// is returned. Must be quick.
    public var endsTheWait: @Sendable (Result<HTTPResponse, HTTPClientError>) -> Bool

    public init(after: Duration, mayHedge: @escaping @Sendable () -> Bool,
                endsTheWait: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Bool) {
        self.after = after
        self.mayHedge = mayHedge
        self.endsTheWait = endsTheWait
    }
}
