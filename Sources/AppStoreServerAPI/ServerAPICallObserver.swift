/// Hears of every App Store Server API call a client made, answered or not: what the worker sums
/// per minute for the console's latency charts (`receiptq.call_minutes`). Called on the caller's
/// task right after the answer (or the failure to get one); it must not block.
public protocol ServerAPICallObserver: Sendable {
    /// One call to `endpoint` in `environment` took `duration`; `status` is the HTTP status, `nil`
    /// when no answer came (timeout, network).
    func called(_ endpoint: ServerAPIEndpoint, environment: ServerAPIEnvironment, status: Int?, duration: Duration)
}
