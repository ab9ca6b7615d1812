import Foundation

/// A purchase to verify, as a backend submits it: a receipt, a StoreKit 2 signed transaction,
/// or a transaction id.
public struct NewJob: Sendable, Hashable {
    public var kind: JobKind
    /// `receipt`: base64 receipt. Whitespace is removed before storing (iOS clients send
    /// line-wrapped base64).
    public var receiptData: String?
    /// `signedTransaction`: the JWS as the app got it from StoreKit 2.
    public var signedTransaction: String?
    /// The transaction the client asks to verify (for a receipt, it must appear in it; for a
    /// signed transaction, its `transactionId`).
    public var transactionID: String
    public var userID: String
    public var productID: String?
    /// StoreKit's applicationUsername: the backend's order id, when Apple kept it.
    public var orderID: String?
    /// StoreKit 2's appAccountToken, when known at submission (a claim: only Apple's signed token
    /// decides ownership).
    public var appAccountToken: UUID?
    /// `signedTransaction`: the environment Apple signed it in (`Production`, `Sandbox`); with
    /// the transaction id and the user, what deduplicates it.
    public var environment: String?
    /// `transactionID`: the backend token that sent it is trusted to vouch for the user, so the
    /// claim counts as proof (`receiptq api --trusted-claim-tokens`).
    public var trustedClaim: Bool = false
    /// `transactionID` with `trustedClaim`: the token that sent it, which the database checks
    /// against the tokens it trusts (a claim without one, or with another, is queued as a plain
    /// claim). Never stored.
    public var claimProof: ClaimProof?
    /// The API request that submitted it (`X-Request-Id`, 1–128 characters the API checked):
    /// kept on the job so its log lines, event and webhook delivery carry it. Not part of any key.
    public var requestID: String?
    /// The W3C traceparent of the span that queued it, when tracing is on: the worker's spans
    /// continue that trace (migration 0038). Not part of any key.
    public var traceParent: String?

    /// A legacy receipt.
    public init(receiptData: String, transactionID: String, userID: String, productID: String? = nil, orderID: String? = nil,
                appAccountToken: UUID? = nil) {
        self.kind = .receipt
        self.receiptData = NewJob.strippingWhitespace(receiptData)
        self.transactionID = transactionID
        self.userID = userID
        self.productID = productID
        self.orderID = orderID
        self.appAccountToken = appAccountToken
    }

    /// A StoreKit 2 signed transaction (already checked by the caller: the API verifies the
    /// signature before answering; the worker verifies it again before granting), signed in
    /// `environment`.
    public static func signedTransaction(_ jws: String, transactionID: String, environment: String, userID: String,
                                         productID: String? = nil, orderID: String? = nil, appAccountToken: UUID? = nil) -> NewJob {
        var job = NewJob(receiptData: "", transactionID: transactionID, userID: userID, productID: productID, orderID: orderID,
                         appAccountToken: appAccountToken)
        job.kind = .signedTransaction
        job.receiptData = nil
        job.signedTransaction = jws
        job.environment = environment
        return job
    }

    /// A transaction id to look up with the App Store Server API: a claim, granted only to the
    /// owner Apple's signed appAccountToken names, unless `trustedClaim` — which the database keeps
    /// only with a `claimProof` it trusts, or from its owner.
    public static func transactionID(_ id: String, userID: String, productID: String? = nil, orderID: String? = nil,
                                     appAccountToken: UUID? = nil, trustedClaim: Bool = false, claimProof: ClaimProof? = nil) -> NewJob {
        var job = NewJob(receiptData: "", transactionID: id, userID: userID, productID: productID, orderID: orderID,
                         appAccountToken: appAccountToken)
        job.kind = .transactionID
        job.receiptData = nil
        job.trustedClaim = trustedClaim
        job.claimProof = claimProof
        return job
    }

    /// Scans the contiguous UTF-8 when the string has it (always, for strings decoded from a
    /// request): the API calls this on every receipt, and a scan through `String.UTF8View` cost
    /// about 2 % of the CPU of `bench api`.
    static func strippingWhitespace(_ text: String) -> String {
        let hasWhitespace = text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isWhitespace) }
            ?? text.utf8.contains(where: isWhitespace)
        guard hasWhitespace else { return text }
        return String(decoding: text.utf8.filter { !isWhitespace($0) }, as: UTF8.self)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }
}

/// What enqueueing one `NewJob` did.
public struct EnqueuedJob: Sendable, Hashable {
    public var id: Int64
    /// False when the same user submitted the same purchase before (the same receipt and
    /// transaction, the same signed transaction, the same transaction id): `id` is then that
    /// user's existing job (whatever else the new submission claimed).
    public var created: Bool
    /// The job's state at the time of the answer.
    public var state: JobState
    /// What the job means for the submitter now, read from the ledger (`receiptq.verdict`).
    public var verdict: Verdict

    public init(id: Int64, created: Bool, state: JobState, verdict: Verdict) {
        self.id = id
        self.created = created
        self.state = state
        self.verdict = verdict
    }
}
