import Foundation

/// A verified purchase the worker wants granted: Apple's transaction as found in the receipt.
public struct GrantCandidate: Sendable, Hashable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var quantity: Int
    /// Milliseconds since 1970, as Apple sends `purchase_date_ms`.
    public var purchaseDateMs: Int64?
    /// `Production` or `Sandbox`.
    public var environment: String

    public init(transactionID: String, originalTransactionID: String, productID: String, quantity: Int,
                purchaseDateMs: Int64?, environment: String) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.quantity = quantity
        self.purchaseDateMs = purchaseDateMs
        self.environment = environment
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

    public init(lease: JobLease, decision: Decision, appleStatus: Int? = nil, appleEnvironment: String? = nil,
                boundedAnswer: Bool = false) {
        self.lease = lease
        self.decision = decision
        self.appleStatus = appleStatus
        self.appleEnvironment = appleEnvironment
        self.boundedAnswer = boundedAnswer
    }
}
