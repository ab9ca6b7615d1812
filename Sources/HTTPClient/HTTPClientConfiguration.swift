/// Settings for one `HTTPClient` (one libcurl multi handle, one thread).
///
/// Every parameter has a default, written in its doc comment. Validate-once happens in
/// `HTTPClient.init`; a value that makes no sense (zero or negative) falls back to its default.
public struct HTTPClientConfiguration: Sendable {
    /// Upper bound on open connections to all hosts together (`CURLMOPT_MAX_TOTAL_CONNECTIONS`).
    /// Transfers beyond it wait in libcurl's pending queue; they do not fail (their total timeout
    /// still runs while they wait). Keep it below the open-files limit minus the process's other
    /// descriptors: running out of descriptors shows up as connect failures. `HTTPClient` lowers
    /// it to seven eighths of the open-files limit in force when it is created.
    /// Default: 8,192.
    public var maxTotalConnections: Int

    /// Idle connections kept open for reuse (`CURLMOPT_MAXCONNECTS`). Default: 8,192.
    public var maxIdleConnections: Int

    /// Time allowed to establish a connection, TLS included (`CURLOPT_CONNECTTIMEOUT_MS`).
    /// Default: 5 seconds.
    public var connectTimeout: Duration

    /// Total time allowed for a request when `post` is not given a timeout (`CURLOPT_TIMEOUT_MS`).
    /// Default: 30 seconds.
    public var defaultTimeout: Duration

    /// Largest response body accepted, in bytes (after content decoding). A larger one fails the
    /// request with `HTTPClientError.responseTooLarge`. Default: 8 MiB.
    public var maxResponseBytes: Int

    /// PEM file of certificate authorities used to verify servers; `nil` uses the system bundle.
    /// TLS verification (peer and host name) is always on and cannot be switched off.
    /// Default: `nil`.
    public var caBundlePath: String?

    /// Easy handles kept on the free list for reuse once their transfer ends; above this they are
    /// cleaned up. Default: 8,192 (enough for the worker's in-flight slots).
    public var maxIdleEasyHandles: Int

    /// libcurl's receive buffer per transfer (`CURLOPT_BUFFERSIZE`, 1 KiB…512 KiB). Every
    /// transfer in flight holds one: at libcurl's 16 KiB default that is 80 MB at 5,000 in flight.
    /// Smaller costs reads: `bench http` at 5,000 in flight (2026-11-27) with answers of ~6.5 KB
    /// (a subscription's, `latest_receipt` included) measured 0.21 ms CPU per request at 1, 2 and
    /// 4 KiB alike, and 150 / 156 / 167 MB peak RSS; with ~20 KB answers 0.29 / 0.25 / 0.22 ms
    /// and 222 / 226 / 237 MB. A consumable's answer is a few KiB at most. Default: 4 KiB, the
    /// smallest that costs a subscription app's larger answers nothing.
    public var receiveBufferBytes: Int

    /// Longest time the engine thread lets events accumulate before it waits again, when busy:
    /// 1 µs per socket watched (none below 64 sockets), capped here. Each turn of the loop has a
    /// fixed cost (system calls, libcurl's timer processing, waking tasks), so serving a batch
    /// per turn is cheaper than one event per turn — measured 0.29 → 0.23 ms CPU per request at
    /// 5,000 in flight. Adds at most this much to a response's latency (Apple takes seconds).
    /// Zero disables it. Default: 5 ms.
    public var maxBatchingDelay: Duration

    /// Creates a configuration; every parameter defaults to the value documented on its property.
    public init(
        maxTotalConnections: Int = 8_192,
        maxIdleConnections: Int = 8_192,
        connectTimeout: Duration = .seconds(5),
        defaultTimeout: Duration = .seconds(30),
        maxResponseBytes: Int = 8 << 20,
        caBundlePath: String? = nil,
        maxIdleEasyHandles: Int = 8_192,
        receiveBufferBytes: Int = 4 << 10,
        maxBatchingDelay: Duration = .milliseconds(5)
    ) {
        self.maxTotalConnections = maxTotalConnections
        self.maxIdleConnections = maxIdleConnections
        self.connectTimeout = connectTimeout
        self.defaultTimeout = defaultTimeout
        self.maxResponseBytes = maxResponseBytes
        self.caBundlePath = caBundlePath
        self.maxIdleEasyHandles = maxIdleEasyHandles
        self.receiveBufferBytes = receiveBufferBytes
        self.maxBatchingDelay = maxBatchingDelay
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a tiny positive duration never becomes "no limit" (0).
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let millis = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, Int(millis))
    }
}
