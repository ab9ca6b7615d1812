/// One caller's request while the engine holds it: the transfer under way and, once a straggler
/// was asked again (`HTTPHedge`), the hedge beside it. Resumed exactly once, by `CurlEngine.finish`.
/// Touched only on the engine thread.
final class EngineRequest {
    let pending: PendingRequest
    /// The transfers still out: one, or two while a hedge runs beside the first.
    var transfers: [CurlTransfer] = []
    /// Hedges sent: at most two — the straggler's, and one more when that one's answer was
    /// inconclusive while the straggler was still out (`CurlEngine.rehedge`).
    var hedges = 0
    /// The latest answer of Apple's trouble (`HTTPHedge.endsTheWait` false) that came while
    /// another transfer was out: returned instead of waiting for that one's timeout once only
    /// stragglers are left (`HTTPHedge.stragglerAfter`).
    var heldTrouble: Result<HTTPResponse, HTTPClientError>?

    init(_ pending: PendingRequest) {
        self.pending = pending
        transfers.reserveCapacity(1)
    }
}
