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
    /// A transfer still out this long is taken for hung: once an answer that does not end the
    /// wait came and no more transfers go, the request ends with that answer when every transfer
    /// left has been out this long, instead of at the last one's timeout. nil: wait them out.
    ///
    /// Why: a hung request whose hedge and re-hedge both met Apple's trouble, or one of a pair
    /// whose other request did, waited its whole timeout (15 s) and then a retry; at 15 %
    /// transient answers and 1 % hangs it was a degraded Apple's last verdict in one kept run of
    /// three (`bench outage`: 106.6 s where the others took ~95 s). Ending it sends nothing
    /// more: the caller retries as it would after the timeout, only sooner. What it risks is an
    /// answer slower than this (the worker passes its hedge delay, past the recent p99), which
    /// costs one request more.
    public var stragglerAfter: Duration?

    public init(after: Duration, stragglerAfter: Duration? = nil, mayHedge: @escaping @Sendable () -> Bool,
                endsTheWait: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Bool) {
        self.after = after
        self.stragglerAfter = stragglerAfter
        self.mayHedge = mayHedge
        self.endsTheWait = endsTheWait
    }
}
