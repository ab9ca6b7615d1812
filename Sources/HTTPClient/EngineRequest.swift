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

    init(_ pending: PendingRequest) {
        self.pending = pending
        transfers.reserveCapacity(1)
    }
}
