import Foundation
import Logging

/// A claimed job: the worker `lockedBy` holds it until `lockedUntil`. The pair (`id`,
/// `attempt`) is the fencing token every completion must present.
public struct JobLease: Sendable, Hashable {
    public var id: Int64
    public var kind: JobKind
    /// The claim number (1 for the first claim); completions for an older attempt are refused.
    public var attempt: Int
    /// `receipt` jobs: the base64 receipt (empty for other kinds).
    public var receiptData: String
    /// `signedTransaction` jobs: the JWS.
    public var signedTransaction: String?
    /// The appAccountToken the client claimed at submission (only a hint for matching this user's
    /// orders: ownership follows the token Apple signed, `GrantCandidate.appAccountToken`).
    public var appAccountToken: UUID?
    /// `transactionID` jobs: the backend token that sent the claim is trusted to vouch for the user.
    public var trustedClaim: Bool
    public var transactionID: String
    public var userID: String
    public var productID: String?
    public var orderID: String?
    public var createdAt: Date
    /// When the retry budget's deadline started counting: enqueue, or the last re-drive by ops.
    public var budgetStart: Date
    public var lockedUntil: Date
    /// Earlier answers that may mean a bad receipt (21002…); see `FinishedAttempt.boundedAnswer`.
    public var boundedAnswers: Int
    /// The API request that queued the job (`X-Request-Id`), for every log line about it.
    public var requestID: String?
    /// The environment whose answer an earlier attempt ended with (`Production`, `Sandbox`), nil
    /// before any: a sandbox receipt's retry starts at the sandbox instead of asking production
    /// for its 21007 again (one round trip of 3–6 s less).
    public var appleEnvironment: String?
    /// The W3C traceparent of the span that queued the job (tracing on), which the worker's spans continue.
    public var traceParent: String?

    /// Metadata for a log line about this job: its id, attempt and request id — never the
    /// receipt, the signed transaction or the user.
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["job": "\(id)", "attempt": "\(attempt)"]
        if let requestID { metadata["request_id"] = .string(requestID) }
        if let traceParent, let traceID = traceParent.split(separator: "-").dropFirst().first { metadata["trace_id"] = .string(String(traceID)) }
        return metadata
    }

    public init(id: Int64, kind: JobKind = .receipt, attempt: Int, receiptData: String, signedTransaction: String? = nil,
                appAccountToken: UUID? = nil, transactionID: String, userID: String, productID: String?,
                orderID: String?, createdAt: Date, budgetStart: Date? = nil, lockedUntil: Date, boundedAnswers: Int = 0,
                trustedClaim: Bool = false, requestID: String? = nil, appleEnvironment: String? = nil, traceParent: String? = nil) {
        self.appleEnvironment = appleEnvironment
        self.traceParent = traceParent
        self.trustedClaim = trustedClaim
        self.requestID = requestID
        self.id = id
        self.kind = kind
        self.signedTransaction = signedTransaction
        self.appAccountToken = appAccountToken
        self.attempt = attempt
        self.receiptData = receiptData
        self.transactionID = transactionID
        self.userID = userID
        self.productID = productID
        self.orderID = orderID
        self.createdAt = createdAt
        self.budgetStart = budgetStart ?? createdAt
        self.lockedUntil = lockedUntil
        self.boundedAnswers = boundedAnswers
    }

    /// Whether verifying this job proves who paid: a receipt (Apple, or our local check, found the
    /// transaction in it) and a signed transaction do; a bare transaction id is a claim, unless its
    /// token is trusted (DESIGN: Ownership).
    public var isProof: Bool { kind != .transactionID || trustedClaim }
}
