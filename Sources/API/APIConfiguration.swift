import AppleSignedData

/// Settings of the HTTP API front. Every parameter has a default, written in its doc comment;
/// only the executable reads flags and environment variables into it.
public struct APIConfiguration: Sendable {
    /// Address to listen on. Default: `127.0.0.1`.
    public var host: String
    /// Port to listen on; 0 picks a free one (tests). Default: 8080.
    public var port: Int
    /// Accepted bearer tokens, as SHA-256 digests. Default: none (every request that needs a
    /// token is refused with 401).
    public var tokens: TokenDigests
    /// The tokens (indices into `tokens`) whose transaction-id submissions count as proof of who
    /// paid: the backend behind them vouches for the user (e.g. it matched the purchase to the
    /// account itself). Without it, a bare transaction id is granted only to the owner Apple's
    /// signed appAccountToken names. Default: none.
    public var trustedClaimTokens: Set<Int>
    /// Largest `receipt_data` accepted, in bytes as sent. A request body may be this plus
    /// `bodySlackBytes`. Default: 512 KiB.
    public var maxReceiptBytes: Int
    /// Room in a request body for the other fields and JSON escapes. Default: 16 KiB.
    public var bodySlackBytes: Int
    /// Requests per second allowed per token (token bucket); 0 switches the limit off. Default: 2,000.
    public var rateLimitPerSecond: Double
    /// Requests a token may make at once above its rate. Default: 4,000.
    public var rateLimitBurst: Double
    /// Failed authentications allowed per client address and minute; beyond them every request
    /// from that address gets 429 until the allowance refills (`AuthFailureLimiter`). 0 switches
    /// the limit off (behind a load balancer that hides client addresses). Default: 20.
    public var authFailuresPerMinute: Int
    /// Long-polls (`?wait=`) one token may have waiting at once; beyond it, the current state is
    /// answered at once (`LongPollBudget`). Default: 1,000.
    public var maxLongPollsPerToken: Int
    /// Long-polls waiting at once in all, each holding a connection: well below the 16,384
    /// descriptors `receiptq api` raises its limit to. Default: 8,000.
    public var maxLongPolls: Int
    /// Database connections (and libpq threads) of the API process. Default: 8.
    public var poolSize: Int
    /// Longest `?wait=` a client may ask for on GET /v1/receipts/{id}. Default: 30 s.
    public var maxWait: Duration
    /// Verifies StoreKit 2 signed transactions before POST /v1/transactions answers, so a forgery
    /// is refused at once and never stored. nil: signed transactions are refused with 422 (the
    /// API was started without `--bundle-ids`). Default: nil.
    public var signedTransactions: SignedTransactionVerifier?
    /// Tells an Apple notification this configuration refuses (another bundle id, app id,
    /// environment, or a root not configured) from a forgery: such a one is stored quarantined and
    /// answered 200, never 422 (Apple does not retry a 4xx). nil: every refusal is a 422. Default:
    /// nil (the `receiptq api` command makes one whenever notifications are taken).
    public var notificationQuarantine: NotificationQuarantine?
    /// Checks each legacy receipt on this machine before POST /v1/receipts stores it: a body that
    /// provably is not an app receipt Apple signed for one of our apps (not PKCS #7, tampered, a
    /// look-alike chain, another bundle id — `provesNotAnAppleReceiptOfOurs`) gets 422 and is
    /// never stored; a receipt we merely cannot confirm (a root or field this release does not
    /// know) is stored for the worker, which asks Apple. nil: not checked. Default: nil (the
    /// `receiptq api` command's default is on: `--receipt-check local`).
    public var receiptCheck: AppReceiptVerifier?
    /// How receipts are inserted. Default: `GroupCommitConfiguration()`.
    public var groupCommit: GroupCommitConfiguration
    /// A connection that has not sent a complete request part for this long is closed — kept-alive
    /// idle clients, and slowloris clients that dribble a request head byte by byte. A request
    /// being answered (a long-poll included) is never cut. Default: 20 s.
    public var idleTimeout: Duration
    /// Whether a subscription in Apple's billing retry (no grace period) keeps its entitlement
    /// while Apple retries. Apple's guidance, and the default: no (a grace period keeps it).
    public var billingRetryAccess: Bool = false
    /// Signs promotional offers and StoreKit 2 signed requests for the backend (POST
    /// /v1/users/{user_id}/offer-signatures). nil: that route answers 501 (the API was started
    /// without an In-App Purchase key). Default: nil.
    public var offerSigning: OfferSigning? = nil
    /// Whether requests get spans (`RequestSpanMiddleware`) and queued jobs keep their traceparent:
    /// set when the process bootstrapped a tracer (`receiptq api --otlp-endpoint`). Default false.
    public var tracing: Bool = false

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        tokens: TokenDigests = TokenDigests(),
        trustedClaimTokens: Set<Int> = [],
        maxReceiptBytes: Int = 512 * 1024,
        bodySlackBytes: Int = 16 * 1024,
        rateLimitPerSecond: Double = 2_000,
        rateLimitBurst: Double = 4_000,
        authFailuresPerMinute: Int = 20,
        maxLongPollsPerToken: Int = 1_000,
        maxLongPolls: Int = 8_000,
        poolSize: Int = 8,
        maxWait: Duration = .seconds(30),
        groupCommit: GroupCommitConfiguration = GroupCommitConfiguration(),
        signedTransactions: SignedTransactionVerifier? = nil,
        notificationQuarantine: NotificationQuarantine? = nil,
        receiptCheck: AppReceiptVerifier? = nil,
        idleTimeout: Duration = .seconds(20)
    ) {
        self.host = host
        self.port = port
        self.tokens = tokens
        self.trustedClaimTokens = trustedClaimTokens
        self.maxReceiptBytes = maxReceiptBytes
        self.bodySlackBytes = bodySlackBytes
        self.rateLimitPerSecond = rateLimitPerSecond
        self.rateLimitBurst = rateLimitBurst
        self.authFailuresPerMinute = authFailuresPerMinute
        self.maxLongPollsPerToken = maxLongPollsPerToken
        self.maxLongPolls = maxLongPolls
        self.poolSize = poolSize
        self.maxWait = maxWait
        self.groupCommit = groupCommit
        self.signedTransactions = signedTransactions
        self.notificationQuarantine = notificationQuarantine
        self.receiptCheck = receiptCheck
        self.idleTimeout = idleTimeout
    }

    /// Each setting's range; the message names the flag.
    public func validate() throws(APIConfigurationError) {
        guard (0...65_535).contains(port) else { throw .init("--port must be 0…65535") }
        guard maxReceiptBytes > 0, bodySlackBytes >= 0 else { throw .init("--max-receipt-bytes must be positive") }
        guard rateLimitPerSecond >= 0, rateLimitPerSecond.isFinite, rateLimitBurst >= 1, rateLimitBurst.isFinite else {
            throw .init("--rate-limit must be ≥ 0 and --rate-burst ≥ 1")
        }
        guard (1...256).contains(poolSize) else { throw .init("--pool-size must be 1…256") }
        guard maxWait >= .zero else { throw .init("the longest wait must not be negative") }
        guard idleTimeout >= .seconds(1) else { throw .init("--idle-timeout must be at least 1s") }
        guard authFailuresPerMinute >= 0 else { throw .init("--auth-failure-limit must be 0 (off) or more") }
        guard maxLongPolls >= 0, (0...maxLongPolls).contains(maxLongPollsPerToken) else {
            throw .init("--max-long-polls-per-token must be 0…--max-long-polls")
        }
    }

    /// The largest request body read before answering 413.
    var maxBodyBytes: Int { maxReceiptBytes + bodySlackBytes }
}

/// An API setting that cannot work; the message names the flag.
public struct APIConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
