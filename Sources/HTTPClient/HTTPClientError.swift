/// Why a request got no usable response. Each case is one thing a caller may handle differently:
/// a worker marks `.timeout` as `timed_out`, treats the rest as retryable network trouble, and
/// alerts on `.tls` (likely a CA bundle or clock problem on our side).
///
/// Cancellation is not a case here: a cancelled request throws `CancellationError`.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The total or connect timeout passed before a complete response arrived.
    case timeout
    /// No connection could be made (refused, unreachable, name not resolved, or out of descriptors).
    case connectFailed(String)
    /// The TLS handshake or certificate verification failed.
    case tls(String)
    /// The response body exceeded the configured limit, in bytes.
    case responseTooLarge(limit: Int)
    /// The URL could not be used (malformed, unsupported scheme).
    case invalidURL(String)
    /// The client was shut down before the request finished.
    case shutdown
    /// Any other transport failure (connection reset, empty reply, protocol error), with libcurl's code.
    case transport(code: Int, message: String)

    /// Terse on purpose: it may end up in job rows and logs.
    public var description: String {
        switch self {
        case .timeout: "timeout"
        case .connectFailed(let message): "connect failed: \(message)"
        case .tls(let message): "TLS failure: \(message)"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .invalidURL(let message): "invalid URL: \(message)"
        case .shutdown: "HTTP client shut down"
        case .transport(let code, let message): "transport error \(code): \(message)"
        }
    }
}
