/// One caller's request while the engine holds it: the transfer under way and, once a straggler
/// was asked again (`HTTPHedge`), the hedge beside it. Resumed exactly once, by `CurlEngine.finish`.
/// Touched only on the engine thread.
final class EngineRequest {
    let pending: PendingRequest
    /// The transfers still out: one, or two while a hedge runs beside the first.
    var transfers: [CurlTransfer] = []
    /// Whether a hedge was sent (at most one per request).
    var hedged = false

    init(_ pending: PendingRequest) {
        self.pending = pending
        transfers.reserveCapacity(1)
    }
}
