import AppStoreServerAPI
import AppleSignedData
import Foundation
import ReceiptQueue
import Testing
import Worker

/// The verdict policy for StoreKit 2 signed transactions and App Store Server API lookups, row by
/// row: a purchase is granted as Apple signed it; `rejected` (the app's "not paid") only when Apple
/// says so — revoked, not found anywhere, an invalid id, a sandbox purchase where the sandbox is
/// refused; every other doubt is retried, or held in `failed` for an operator.
@Suite("Transaction policy: what a check of a signed transaction or a lookup records")
struct TransactionDecisionTests {
    let decision = TransactionDecision(retryPolicy: RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(60)))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func signedLease(attempt: Int = 1, boundedAnswers: Int = 0, token: UUID? = nil) -> JobLease {
        JobLease(id: 7, kind: .signedTransaction, attempt: attempt, receiptData: "", signedTransaction: "jws", appAccountToken: token,
                 transactionID: "2000000001", userID: "u1", productID: "claimed.product", orderID: "order-1",
                 createdAt: now.addingTimeInterval(-10), lockedUntil: now.addingTimeInterval(60), boundedAnswers: boundedAnswers)
    }

    static func transaction(type: ProductType = .consumable, revoked: Bool = false, family: Bool = false,
                            token: UUID? = nil) -> TransactionPayload {
        var payload = TransactionPayload()
        payload.transactionId = "2000000001"
        payload.originalTransactionId = "2000000000"
        payload.webOrderLineItemId = type == .autoRenewableSubscription ? "5000000001" : nil
        payload.productId = "com.example.gold"
        payload.quantity = 3
        payload.type = type
        payload.purchaseDate = 1_799_999_000_000
        payload.expiresDate = type == .autoRenewableSubscription ? 1_802_000_000_000 : nil
        payload.inAppOwnershipType = family ? .familyShared : .purchased
        payload.revocationDate = revoked ? 1_799_999_500_000 : nil
        payload.revocationReason = revoked ? 1 : nil
        payload.appAccountToken = token
        payload.storefront = "FRA"
        payload.price = 4_990
        payload.currency = "EUR"
        return payload
    }

    func decide(_ check: TransactionCheck, lease: JobLease? = nil, policy: TransactionDecision? = nil) -> FinishedAttempt {
        var random = Fixed()
        return (policy ?? decision).decide(check, lease: lease ?? signedLease(), now: now, using: &random)
    }

    @Test("a verified purchase is granted as Apple signed it: product, quantity, type, ownership, token, price — never the client's claims")
    func grantsWhatAppleSigned() throws {
        let token = UUID()
        let attempt = decide(.verified(Self.transaction(type: .nonConsumable, token: token), environment: "Production"))
        guard case .grant(let candidate) = attempt.decision else { Issue.record("not granted: \(attempt.decision)"); return }
        #expect(candidate.productID == "com.example.gold")
        #expect(candidate.quantity == 3)
        #expect(candidate.transactionID == "2000000001")
        #expect(candidate.originalTransactionID == "2000000000")
        #expect(candidate.productType == "non_consumable")
        #expect(candidate.ownershipType == "PURCHASED")
        #expect(candidate.appAccountToken == token)
        #expect(candidate.environment == "Production")
        #expect(candidate.storefront == "FRA" && candidate.price == 4_990 && candidate.currency == "EUR")
        #expect(attempt.appleEnvironment == "Production")
    }

    @Test("Apple's product type becomes the ledger's, which picks the purchase key", arguments: [
        (ProductType.consumable, "consumable"), (.nonConsumable, "non_consumable"),
        (.autoRenewableSubscription, "auto_renewable"), (.nonRenewingSubscription, "non_renewing"),
    ])
    func productTypes(type: ProductType, ledger: String) {
        guard case .grant(let candidate) = decide(.verified(Self.transaction(type: type), environment: "Production")).decision else {
            Issue.record("not granted"); return
        }
        #expect(candidate.productType == ledger)
        if type == .autoRenewableSubscription {
            #expect(candidate.webOrderLineItemID == "5000000001")
            #expect(candidate.expiresDateMs == 1_802_000_000_000)
        }
    }

    @Test("a type Apple adds later is left for the catalog to say, not guessed")
    func unknownType() {
        var payload = Self.transaction()
        payload.type = .unknown("Something New")
        guard case .grant(let candidate) = decide(.verified(payload, environment: "Production")).decision else {
            Issue.record("not granted"); return
        }
        #expect(candidate.productType == nil)
    }

    @Test("a family member's access is granted as FAMILY_SHARED")
    func familyShared() {
        guard case .grant(let candidate) = decide(.verified(Self.transaction(type: .nonConsumable, family: true), environment: "Production")).decision
        else { Issue.record("not granted"); return }
        #expect(candidate.ownershipType == "FAMILY_SHARED")
    }

    @Test("a refunded or revoked transaction is not paid")
    func revoked() {
        guard case .result(.rejected(let reason)) = decide(.verified(Self.transaction(revoked: true), environment: "Production")).decision else {
            Issue.record("not rejected"); return
        }
        #expect(reason.contains("refunded or revoked"))
        #expect(reason.contains("revocation reason 1"))
    }

    @Test("a sandbox purchase is granted, or rejected only where the sandbox is refused")
    func sandbox() {
        let check = TransactionCheck.verified(Self.transaction(), environment: "Sandbox")
        guard case .grant(let candidate) = decide(check).decision else { Issue.record("not granted"); return }
        #expect(candidate.environment == "Sandbox")
        guard case .result(.rejected(let reason)) = decide(check, policy: TransactionDecision(acceptSandbox: false)).decision else {
            Issue.record("not rejected"); return
        }
        #expect(reason.contains("sandbox"))
    }

    @Test("the worker refusing a signature the API accepted is configuration drift: failed for an operator, never not-paid", arguments: [
        SignedDataVerificationError.Reason.chainNotTrusted, .badSignature, .bundleIdMismatch, .environmentMismatch, .malformedJWS,
        .certificateExpired, .appAppleIdMismatch,
    ])
    func workerRefusal(reason: SignedDataVerificationError.Reason) {
        guard case .result(.failed(let text)) = decide(.signatureRefused(reason)).decision else {
            Issue.record("\(reason) not failed"); return
        }
        #expect(text.contains("redrive"))
    }

    @Test("an unknown revocation status of Apple's certificate is retried")
    func revocationUnknown() {
        guard case .result(.retry) = decide(.signatureRefused(.revocationCheckFailed)).decision else { Issue.record("not retried"); return }
    }

    @Test("Apple saying no such transaction, in either environment, or an invalid id: not paid")
    func notFound() {
        for check in [TransactionCheck.notFoundAnywhere, .serverAPI(ServerAPIError(.transactionNotFound, httpStatus: 404)),
                      .serverAPI(ServerAPIError(.invalidRequest, httpStatus: 400, errorCode: 4_000_006))] {
            guard case .result(.rejected) = decide(check).decision else { Issue.record("\(check) not rejected"); return }
        }
    }

    @Test("Apple-side trouble is retried with backoff, and counts against the Server API's breaker", arguments: [
        ServerAPIError.Kind.retryable, .unexpectedStatus, .unreadableResponse, .network,
    ])
    func appleTrouble(kind: ServerAPIError.Kind) {
        let check = TransactionCheck.serverAPI(ServerAPIError(kind, httpStatus: 503))
        guard case .result(.retry(let delay, _)) = decide(check).decision else { Issue.record("\(kind) not retried"); return }
        #expect(delay >= 500 && delay <= 1_000)
        #expect(TransactionDecision.isAppleTrouble(check))
    }

    @Test("no answer in time is timed_out, for the scheduler to requeue")
    func timeout() {
        guard case .result(.timedOut) = decide(.serverAPI(ServerAPIError(.timeout))).decision else { Issue.record("not timed out"); return }
        #expect(TransactionDecision.isAppleTrouble(.serverAPI(ServerAPIError(.timeout))))
    }

    @Test("a 429 waits exactly as long as Apple's Retry-After says, and is not Apple trouble")
    func rateLimited() {
        let check = TransactionCheck.serverAPI(ServerAPIError(.rateLimited(until: now.addingTimeInterval(7.5)), httpStatus: 429))
        guard case .result(.retry(let delay, _)) = decide(check).decision else { Issue.record("not retried"); return }
        #expect(delay == 7_500)
        #expect(!TransactionDecision.isAppleTrouble(check))
    }

    @Test("our credentials refused: retried, counted, and after five held in failed for a re-drive — never not-paid")
    func unauthorized() {
        let check = TransactionCheck.serverAPI(ServerAPIError(.unauthorized, httpStatus: 401))
        let first = decide(check)
        guard case .result(.retry) = first.decision else { Issue.record("not retried"); return }
        #expect(first.boundedAnswer)
        guard case .result(.failed(let reason)) = decide(check, lease: signedLease(boundedAnswers: 4)).decision else {
            Issue.record("not failed"); return
        }
        #expect(reason.contains("redrive"))
    }

    @Test("a signed transaction without an id or product is retried, not granted with made-up facts")
    func incomplete() {
        var payload = Self.transaction()
        payload.productId = nil
        guard case .result(.retry) = decide(.verified(payload, environment: "Production")).decision else { Issue.record("not retried"); return }
    }
}
