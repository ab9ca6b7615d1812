import Foundation

/// A purchase Apple verified, as the worker hands it to the ledger: Apple's transaction (its
/// product and quantity, never the client's claims), and what the ledger needs to key it as one
/// purchase (`RecordPurchases`, decided by `LedgerDecision`).
public struct GrantCandidate: Sendable, Hashable {
    public var transactionID: String
    public var originalTransactionID: String
    /// The subscription period's id; restores of a period share it, renewals get a new one.
    public var webOrderLineItemID: String?
    /// Apple's product id.
    public var productID: String
    public var quantity: Int
    /// Milliseconds since 1970, as Apple sends `purchase_date_ms`.
    public var purchaseDateMs: Int64?
    /// Set for subscriptions: the period's end (an auto-renewable subscription unless the
    /// product catalog says otherwise).
    public var expiresDateMs: Int64?
    /// `Production` or `Sandbox`.
    public var environment: String
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var ownershipType: String
    /// The product's type when Apple signed it (StoreKit 2 `type`): `consumable`,
    /// `non_consumable`, `auto_renewable`, `non_renewing`; nil: inferred by the ledger.
    public var productType: String?
    /// The appAccountToken Apple signed (StoreKit 2's, a receipt's `app_account_token`, the App
    /// Store Server API's) — never the client's claim. It names the order whose user owns the
    /// purchase, whoever submits it.
    public var appAccountToken: UUID?
    public var storefront: String?
    /// In milliunits of `currency`, as Apple signs it.
    public var price: Int64?
    public var currency: String?

    public init(transactionID: String, originalTransactionID: String, webOrderLineItemID: String? = nil, productID: String,
                quantity: Int, purchaseDateMs: Int64?, expiresDateMs: Int64? = nil, environment: String,
                ownershipType: String = "PURCHASED", productType: String? = nil, appAccountToken: UUID? = nil,
                storefront: String? = nil, price: Int64? = nil, currency: String? = nil) {
        self.productType = productType
        self.appAccountToken = appAccountToken
        self.storefront = storefront
        self.price = price
        self.currency = currency
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMs = purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.environment = environment
        self.ownershipType = ownershipType
    }
}

/// One attempt as the worker hands it to the outcome writer: either a plain outcome, or a
/// grant to record (whose final outcome — granted, already granted, rejected — the ledger
/// decides inside the writing transaction).
public struct FinishedAttempt: Sendable, Hashable {
    public enum Decision: Sendable, Hashable {
        case result(AttemptResult)
        case grant(GrantCandidate)
    }

    public var lease: JobLease
    public var decision: Decision
    public var appleStatus: Int?
    public var appleEnvironment: String?
    /// Apple's answer may mean the receipt itself is bad (21002…): counted in
    /// `jobs.bounded_answers`.
    public var boundedAnswer: Bool
    /// What the verified answer says about the auto-renewable subscriptions it holds, applied to
    /// the subscription model in the same transaction as the verdict — only when the ledger holds
    /// the grant (granted, already granted, another account's). Empty for anything but a
    /// subscription period, so other purchases cost the writer nothing.
    public var subscriptionFacts: [SubscriptionFact]

    public init(lease: JobLease, decision: Decision, appleStatus: Int? = nil, appleEnvironment: String? = nil,
                boundedAnswer: Bool = false, subscriptionFacts: [SubscriptionFact] = []) {
        self.lease = lease
        self.decision = decision
        self.appleStatus = appleStatus
        self.appleEnvironment = appleEnvironment
        self.boundedAnswer = boundedAnswer
        self.subscriptionFacts = subscriptionFacts
    }
}
