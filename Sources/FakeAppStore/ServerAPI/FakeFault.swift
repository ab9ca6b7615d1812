/// A canned failure for the next `count` Server API requests (to one endpoint, or any): how tests
/// see Apple's retryable codes, a 404, or a 429 with a chosen `Retry-After` on demand.
/// `POST /fake/admin/faults` takes it as JSON.
public struct FakeFault: Codable, Sendable, Equatable {
    /// The endpoint name (`get_transaction_info`, …); `nil` matches any.
    public var endpoint: String?
    public var httpStatus: Int
    /// Apple's `errorCode` for the body; `nil` sends an empty body.
    public var errorCode: Int64?
    /// For a 429: `Retry-After` is now plus this many milliseconds (as UNIX milliseconds, Apple's
    /// format).
    public var retryAfterMilliseconds: Int64?
    /// How many requests it answers. Default: 1.
    public var count: Int?

    public init(endpoint: String? = nil, httpStatus: Int, errorCode: Int64? = nil, retryAfterMilliseconds: Int64? = nil, count: Int = 1) {
        self.endpoint = endpoint
        self.httpStatus = httpStatus
        self.errorCode = errorCode
        self.retryAfterMilliseconds = retryAfterMilliseconds
        self.count = count
    }

    func validate() throws {
        guard (100...599).contains(httpStatus) else { throw FakeAdminError.badRequest("httpStatus must be 100-599") }
        guard (1...100_000).contains(count ?? 1) else { throw FakeAdminError.badRequest("count must be 1-100000") }
        if let delay = retryAfterMilliseconds, delay < 0 { throw FakeAdminError.badRequest("retryAfterMilliseconds must not be negative") }
        if let endpoint, !FakeServerAPIConfiguration.appleRateLimits.keys.contains(endpoint) {
            throw FakeAdminError.badRequest("unknown endpoint \(endpoint)")
        }
    }
}
