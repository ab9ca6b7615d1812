import Foundation

/// What one HTTP answer from the App Store Server API means. Pure: `classify` depends only on its
/// arguments, so every rule is a row in a table test (`ServerAPIClassificationTests`).
public enum ServerAPIClassification: Sendable, Equatable {
    /// A 2xx: decode the body.
    case success
    case failure(ServerAPIError)

    /// Apple's error codes that mean "try again": AccountNotFoundRetryable, AppNotFoundRetryable,
    /// OriginalTransactionIdNotFoundRetryable, GeneralInternalRetryable.
    public static let retryableErrorCodes: Set<Int64> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]
    /// TransactionIdNotFound and OriginalTransactionIdNotFound: not in this environment.
    public static let notInEnvironmentErrorCodes: Set<Int64> = [4_040_010, 4_040_005]
    /// RateLimitExceeded.
    public static let rateLimitErrorCode: Int64 = 4_290_000

    /// The rules, in order: 2xx success; a retryable error code (whatever the status); 429 or
    /// 4290000 rate limited until `Retry-After`; 401 unauthorized; 404 with 4040010/4040005
    /// transaction not found, other 404 not found; any 5xx retryable; other 4xx invalid request;
    /// anything else unexpected. A body that is not Apple's JSON only loses the error code.
    /// - Parameters:
    ///   - retryAfter: the `Retry-After` header, if any (see `RetryAfter.parse`).
    ///   - now: the wall clock, for a `Retry-After` given in seconds.
    public static func classify(httpStatus: Int, body: [UInt8], retryAfter: String?, now: Date) -> ServerAPIClassification {
        if (200...299).contains(httpStatus) { return .success }
        let payload = ErrorPayload.decode(body)
        let code = payload?.errorCode
        let message = payload?.errorMessage
        func failure(_ kind: ServerAPIError.Kind) -> ServerAPIClassification {
            .failure(ServerAPIError(kind, httpStatus: httpStatus, errorCode: code, detail: message))
        }
        if let code, retryableErrorCodes.contains(code) { return failure(.retryable) }
        if httpStatus == 429 || code == rateLimitErrorCode {
            return failure(.rateLimited(until: RetryAfter.parse(retryAfter, now: now)))
        }
        switch httpStatus {
        case 401: return failure(.unauthorized)
        case 404: return failure(code.map(notInEnvironmentErrorCodes.contains) == true ? .transactionNotFound : .notFound)
        case 500...599: return failure(.retryable)
        case 400...499: return failure(.invalidRequest)
        default: return failure(.unexpectedStatus)
        }
    }
}
