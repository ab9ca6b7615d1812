/// Get All Subscription Statuses' answer: for each subscription group, the latest transaction and
/// renewal info of each of the customer's subscriptions in it.
public struct StatusResponse: Decodable, Sendable, Hashable {
    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [SubscriptionGroupIdentifierItem]?

    public init(environment: String? = nil, bundleId: String? = nil, appAppleId: Int64? = nil, data: [SubscriptionGroupIdentifierItem]? = nil) {
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.data = data
    }

    enum CodingKeys: String, CodingKey { case environment, bundleId, appAppleId, data }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        environment = c.lenient(.environment)
        bundleId = c.lenient(.bundleId)
        appAppleId = c.lenientInt64(.appAppleId)
        data = c.lenient(.data)
    }
}

/// One subscription group of a `StatusResponse`.
public struct SubscriptionGroupIdentifierItem: Decodable, Sendable, Hashable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem]?

    public init(subscriptionGroupIdentifier: String? = nil, lastTransactions: [LastTransactionsItem]? = nil) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.lastTransactions = lastTransactions
    }

    enum CodingKeys: String, CodingKey { case subscriptionGroupIdentifier, lastTransactions }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        subscriptionGroupIdentifier = c.lenient(.subscriptionGroupIdentifier)
        lastTransactions = c.lenient(.lastTransactions)
    }
}

/// The latest signed transaction and renewal info of one subscription.
public struct LastTransactionsItem: Decodable, Sendable, Hashable {
    /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int?
    public var originalTransactionId: String?
    /// A JWS transaction.
    public var signedTransactionInfo: String?
    /// A JWS renewal info; verify with `SignedDataVerifier.verifyRenewalInfo`.
    public var signedRenewalInfo: String?

    public init(status: Int? = nil, originalTransactionId: String? = nil, signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil) {
        self.status = status
        self.originalTransactionId = originalTransactionId
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }

    enum CodingKeys: String, CodingKey { case status, originalTransactionId, signedTransactionInfo, signedRenewalInfo }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = c.lenient(.status)
        originalTransactionId = c.lenient(.originalTransactionId)
        signedTransactionInfo = c.lenient(.signedTransactionInfo)
        signedRenewalInfo = c.lenient(.signedRenewalInfo)
    }
}
