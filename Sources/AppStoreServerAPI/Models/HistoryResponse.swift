/// One page of Get Transaction History (v2): up to 20 signed transactions of the customer who made
/// the transaction asked about. Ask again with `revision` while `hasMore` is true.
public struct HistoryResponse: Decodable, Sendable, Hashable {
    /// The token for the next page (and, after the last page, for changes since).
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    /// `Production` or `Sandbox`.
    public var environment: String?
    /// JWS transactions; verify each with `SignedDataVerifier.verifyTransaction`.
    public var signedTransactions: [String]?

    public init(revision: String? = nil, hasMore: Bool? = nil, bundleId: String? = nil, appAppleId: Int64? = nil,
                environment: String? = nil, signedTransactions: [String]? = nil) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signedTransactions = signedTransactions
    }

    enum CodingKeys: String, CodingKey { case revision, hasMore, bundleId, appAppleId, environment, signedTransactions }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        revision = c.lenient(.revision)
        hasMore = c.lenient(.hasMore)
        bundleId = c.lenient(.bundleId)
        appAppleId = c.lenientInt64(.appAppleId)
        environment = c.lenient(.environment)
        signedTransactions = c.lenient(.signedTransactions)
    }
}

/// Every page of a transaction history, as `AppStoreServerAPIClient.getFullTransactionHistory`
/// collected them.
public struct TransactionHistory: Sendable, Hashable {
    /// All signed transactions, in Apple's order across pages.
    public var signedTransactions: [String]
    /// The last page's revision: keep it to ask only for changes next time.
    public var revision: String?
    public var pages: Int
    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
}
