import Foundation
import ReceiptQueue
import Testing

/// Which facts a batch's submissions feed the subscription model, and whom each may name its
/// user (`ApplySubmissionFacts.plan`): only purchases the ledger holds; the owner only from the
/// owner's own granted or already-granted job, for that job's own subscription.
@Suite("Submission facts: which ones a batch applies, and whom they may make the subscriber")
struct SubmissionFactsPlanTests {
    static let signed = Date(timeIntervalSince1970: 1_790_000_000)

    static func fact(_ original: String, environment: String = "Production", product: String = "basic") -> SubscriptionFact {
        SubscriptionFact(source: .receipt, originalTransactionID: original, environment: environment, signedAt: signed,
                         transaction: SubscriptionTransaction(transactionID: original, productID: product, purchasedAt: signed,
                                                              expiresAt: signed.addingTimeInterval(86_400), isRenewal: false))
    }

    static func attempt(_ id: Int64, user: String, original: String = "100", environment: String = "Production",
                        facts: [SubscriptionFact], grant: Bool = true) -> FinishedAttempt {
        let lease = JobLease(id: id, attempt: 1, receiptData: "", transactionID: original, userID: user, productID: nil, orderID: nil,
                             createdAt: signed, lockedUntil: signed)
        let decision: FinishedAttempt.Decision = grant
            ? .grant(GrantCandidate(transactionID: original, originalTransactionID: original, productID: "basic", quantity: 1,
                                    purchaseDateMs: nil, environment: environment))
            : .result(.rejected(reason: "refunded"))
        return FinishedAttempt(lease: lease, decision: decision, subscriptionFacts: facts)
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var attempts: [FinishedAttempt]
        var outcomes: [Int64: JobOutcome]
        /// (original transaction, owner) in the order applied.
        var expected: [String]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "granted: the job's user may become the subscriber",
            attempts: [attempt(1, user: "u1", facts: [fact("100")])], outcomes: [1: .granted], expected: ["100:u1"]),
        Row(name: "already granted (a resubmission or restore by the owner): the same",
            attempts: [attempt(1, user: "u1", facts: [fact("100")])], outcomes: [1: .alreadyGranted], expected: ["100:u1"]),
        Row(name: "a replay under another account (owned_elsewhere): applied, naming nobody",
            attempts: [attempt(1, user: "u2", facts: [fact("100")])], outcomes: [1: .ownedElsewhere(reason: "another's")],
            expected: ["100:-"]),
        Row(name: "rejected, resubmit, failed, retried: nothing applied",
            attempts: [attempt(1, user: "u1", facts: [fact("100")]), attempt(2, user: "u1", facts: [fact("101")]),
                       attempt(3, user: "u1", facts: [fact("102")]), attempt(4, user: "u1", facts: [fact("103")])],
            outcomes: [1: .rejected(reason: "r"), 2: .resubmit(reason: "r"), 3: .failed(reason: "f"),
                       4: .retry(delayMilliseconds: 1, error: "e")],
            expected: []),
        Row(name: "a lost lease (no outcome): nothing applied",
            attempts: [attempt(1, user: "u1", facts: [fact("100")])], outcomes: [:], expected: []),
        Row(name: "the receipt's other subscriptions: applied, naming nobody (their grants are not this job's)",
            attempts: [attempt(1, user: "u1", facts: [fact("100"), fact("200")])], outcomes: [1: .granted],
            expected: ["100:u1", "200:-"]),
        Row(name: "the job's subscription in another environment: naming nobody",
            attempts: [attempt(1, user: "u1", facts: [fact("100", environment: "Sandbox")])], outcomes: [1: .granted],
            expected: ["100:-"]),
        Row(name: "one receipt, two jobs (a replay first in the batch, then the owner): applied once, naming the owner",
            attempts: [attempt(1, user: "u2", facts: [fact("100")]), attempt(2, user: "u1", facts: [fact("100")])],
            outcomes: [1: .ownedElsewhere(reason: "another's"), 2: .alreadyGranted], expected: ["100:u1"]),
        Row(name: "applied in (original transaction, environment) order, whatever the batch's order",
            attempts: [attempt(1, user: "u1", original: "300", facts: [fact("300")]),
                       attempt(2, user: "u2", original: "100", facts: [fact("100", environment: "Sandbox"), fact("100")])],
            outcomes: [1: .granted, 2: .granted], expected: ["100:u2", "100:-", "300:u1"]),
    ]

    @Test("plan", arguments: rows)
    func plan(_ row: Row) {
        let planned = ApplySubmissionFacts.plan(row.attempts, outcomes: row.outcomes)
        #expect(planned.map { "\($0.fact.originalTransactionID):\($0.owner ?? "-")" } == row.expected)
    }

    @Test("a batch without subscription periods plans nothing")
    func nothingToDo() {
        let consumable = Self.attempt(1, user: "u1", facts: [])
        #expect(ApplySubmissionFacts.plan([consumable], outcomes: [1: .granted]).isEmpty)
    }
}
