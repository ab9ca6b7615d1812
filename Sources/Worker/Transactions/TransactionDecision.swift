import AppStore
import AppStoreServerAPI
import AppleSignedData
import Foundation
import ReceiptQueue

/// The verdict policy for StoreKit 2 signed transactions and App Store Server API lookups, in one
/// pure place (table-tested), as `AttemptDecision` is for verifyReceipt:
///
/// | check | recorded |
/// |---|---|
/// | verified, not revoked | grant what Apple signed (product, quantity, type, appAccountToken); an auto-renewable period is also a `transaction` fact for the subscription model |
/// | verified, revoked (`revocationDate`) | rejected: refunded or revoked by Apple |
/// | verified in the sandbox while sandbox purchases are refused | rejected: no money changed hands |
/// | signature, chain or claims refused by the worker after the API accepted them | failed (configuration drift; re-drivable) |
/// | no such transaction in either environment; Apple says the id is invalid | rejected |
/// | (server-api) the receipt provably is not Apple's for our apps | rejected, Apple not asked |
/// | (server-api) the verified receipt does not hold the client's transaction | resubmit |
/// | (server-api) a receipt this machine cannot confirm, answered by verifyReceipt | as `AttemptDecision` decides for verifyReceipt |
/// | Apple-side trouble (5xx, retryable codes, network) | retry with backoff |
/// | no answer in time | timed_out (the scheduler requeues) |
/// | rate limited (429) | retry when Apple's `Retry-After` says |
/// | our credentials refused (401) | retry and alert; failed after a few (re-drivable once fixed) |
/// | an answer we do not understand | retry and alert, never a rejection |
public struct TransactionDecision: Sendable {
    public var acceptSandbox: Bool
    public var retryPolicy: RetryPolicy
    /// 401 answers for one job before it is given up into `failed`. Default 5.
    public var credentialFailures: Int
    /// How verifyReceipt's answers become outcomes, for receipts the local check could not
    /// confirm (`--receipt-verifier server-api`). nil: such a check is retried (never rejected).
    /// Default nil.
    public var receipts: AttemptDecision?

    public init(acceptSandbox: Bool = true, retryPolicy: RetryPolicy = RetryPolicy(), credentialFailures: Int = 5,
                receipts: AttemptDecision? = nil) {
        self.acceptSandbox = acceptSandbox
        self.retryPolicy = retryPolicy
        self.credentialFailures = credentialFailures
        self.receipts = receipts
    }

    public func decide<R: RandomNumberGenerator>(_ check: TransactionCheck, lease: JobLease, now: Date,
                                                 using random: inout R) -> FinishedAttempt {
        var environment: String?
        var counted = false
        var facts: [SubscriptionFact] = []
        let decision: FinishedAttempt.Decision
        switch check {
        case .verified(let transaction, let signedIn):
            environment = signedIn
            if transaction.revocationDate != nil {
                decision = .result(.rejected(reason: "refunded or revoked by Apple"
                    + (transaction.revocationReason.map { " (revocation reason \($0))" } ?? "")))
            } else if signedIn == "Sandbox" && !acceptSandbox {
                decision = .result(.rejected(reason: "sandbox purchases are not accepted (--reject-sandbox)"))
            } else if let candidate = Self.candidate(transaction, environment: signedIn, lease: lease) {
                decision = .grant(candidate)
                facts = SubscriptionFact.transaction(transaction, environment: signedIn).map { [$0] } ?? []
            } else {
                decision = .result(.retry(delayMilliseconds: delay(lease, now, &random), error: "signed transaction without an id or product"))
            }
        case .signatureRefused(let reason):
            switch reason {
            case .revocationCheckFailed:
                decision = .result(.retry(delayMilliseconds: delay(lease, now, &random), error: "certificate revocation status unknown"))
            default:
                // The API verified this signature before committing the job, so a refusal here is
                // the two processes disagreeing (roots, bundle ids, --reject-sandbox), never Apple
                // saying the purchase is invalid: held in `failed` for an operator, not rejected.
                decision = .result(.failed(reason: "the worker refused a signature the API accepted (\(SignedDataVerificationError(reason).description)): "
                    + "give the API and the workers the same --signed-data-root, --bundle-ids and --reject-sandbox, then receiptq redrive"))
            }
        case .receiptRefused(let reason):
            decision = .result(.rejected(reason: reason))
        case .notInReceipt(let reason):
            decision = .result(.resubmit(reason: reason))
        case .verifyReceipt(let result, let locallyValid):
            guard let receipts else {
                decision = .result(.retry(delayMilliseconds: delay(lease, now, &random), error: "verifyReceipt's answer has no policy here"))
                break
            }
            return receipts.decide(result, lease: lease, now: now, receiptVerifiedLocally: locallyValid, using: &random)
        case .notFoundAnywhere:
            decision = .result(.rejected(reason: "App Store Server API: no such transaction in production or the sandbox"))
        case .serverAPI(let error):
            switch error.kind {
            case .transactionNotFound:
                decision = .result(.rejected(reason: "App Store Server API: no such transaction in production or the sandbox"))
            case .invalidRequest:
                decision = .result(.rejected(reason: "App Store Server API: the transaction id is not valid (\(error.errorCode.map(String.init) ?? "400"))"))
            case .timeout:
                decision = .result(.timedOut(delayMilliseconds: delay(lease, now, &random), error: error.description))
            case .rateLimited(let until):
                let wait = until.map { Int64(max(0, $0.timeIntervalSince(now)) * 1000) } ?? delay(lease, now, &random)
                decision = .result(.retry(delayMilliseconds: wait, error: error.description))
            case .unauthorized:
                counted = true
                decision = lease.boundedAnswers + 1 >= credentialFailures
                    ? .result(.failed(reason: "\(error.description) \(lease.boundedAnswers + 1) times; receiptq redrive once fixed"))
                    : .result(.retry(delayMilliseconds: delay(lease, now, &random), error: error.description))
            case .retryable, .unexpectedStatus, .unreadableResponse, .network, .notFound:
                decision = .result(.retry(delayMilliseconds: delay(lease, now, &random), error: error.description))
            }
        }
        return FinishedAttempt(lease: lease, decision: decision, appleStatus: nil, appleEnvironment: environment, boundedAnswer: counted,
                               subscriptionFacts: facts)
    }

    /// What the ledger is handed: Apple's signed facts, never the client's claims.
    static func candidate(_ transaction: TransactionPayload, environment: String, lease: JobLease) -> GrantCandidate? {
        guard let id = transaction.transactionId, let product = transaction.productId else { return nil }
        return GrantCandidate(
            transactionID: id, originalTransactionID: transaction.originalTransactionId ?? id,
            webOrderLineItemID: transaction.webOrderLineItemId, productID: product, quantity: max(transaction.quantity ?? 1, 1),
            purchaseDateMs: transaction.purchaseDate, expiresDateMs: transaction.expiresDate, environment: environment,
            ownershipType: transaction.inAppOwnershipType == .familyShared ? "FAMILY_SHARED" : "PURCHASED",
            productType: transaction.type.flatMap(Self.ledgerType), appAccountToken: transaction.appAccountToken,
            storefront: transaction.storefront, price: transaction.price, currency: transaction.currency)
    }

    /// The ledger's spelling of Apple's product type.
    static func ledgerType(_ type: ProductType) -> String? {
        switch type {
        case .consumable: "consumable"
        case .nonConsumable: "non_consumable"
        case .autoRenewableSubscription: "auto_renewable"
        case .nonRenewingSubscription: "non_renewing"
        case .unknown: nil
        }
    }

    /// Whether the check asked the App Store Server API at all (a receipt decided by the local
    /// check, or sent to verifyReceipt, did not): a check that did not is neither success nor
    /// failure for the Server API's circuit breaker.
    public static func reachedApple(_ check: TransactionCheck) -> Bool {
        switch check {
        case .receiptRefused, .notInReceipt, .verifyReceipt: false
        default: true
        }
    }

    /// Whether the check means Apple's side is in trouble (for the Server API's circuit breaker).
    public static func isAppleTrouble(_ check: TransactionCheck) -> Bool {
        guard case .serverAPI(let error) = check else { return false }
        switch error.kind {
        case .retryable, .unexpectedStatus, .unreadableResponse, .network, .timeout: return true
        default: return false
        }
    }

    private func delay<R: RandomNumberGenerator>(_ lease: JobLease, _ now: Date, _ random: inout R) -> Int64 {
        retryPolicy.delayMilliseconds(afterAttempt: lease.attempt, createdAt: lease.budgetStart, now: now, using: &random)
    }
}
