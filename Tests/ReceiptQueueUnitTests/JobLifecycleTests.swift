import Foundation
import ReceiptQueue
import Testing

/// The job's state machine as a table: every state × every event × budget spent or not. A row
/// not listed must be refused (`nil`): the statement leaves the job alone.
@Suite("Job lifecycle: every state, every event")
struct JobLifecycleTests {
    static let lifecycle = JobLifecycle(budget: RetryBudget(maxAttempts: 10, deadline: .seconds(3600)))
    static let enqueued = Date(timeIntervalSince1970: 1_000_000)
    static let fresh = JobLifecycle.Facts(attempts: 1, createdAt: enqueued)
    static let now = enqueued.addingTimeInterval(60)

    static var events: [JobEvent] {
        [.claim, .leaseExpired, .timedOutDue, .release, .redrive, .discard] + AttemptEnd.allCases.map(JobEvent.complete)
    }

    /// (from, event) → (next with budget left, next with budget spent). Anything else is refused.
    static let table: [JobState: [JobEvent: (JobState, JobState)]] = [
        .queued: [.claim: (.verifying, .verifying), .discard: (.failed, .failed)],
        .verifying: [
            .complete(.granted): (.granted, .granted),
            .complete(.alreadyGranted): (.alreadyGranted, .alreadyGranted),
            .complete(.rejected): (.rejected, .rejected),
            .complete(.failed): (.failed, .failed),
            .complete(.resubmit): (.resubmit, .resubmit),
            .complete(.ownedElsewhere): (.ownedElsewhere, .ownedElsewhere),
            .complete(.retry): (.queued, .failed),
            .complete(.receiptDoubted): (.queued, .failed),
            .complete(.secretRefused): (.queued, .failed),
            .complete(.timedOut): (.timedOut, .failed),
            .leaseExpired: (.queued, .failed),
            .release: (.queued, .queued),
        ],
        .timedOut: [.timedOutDue: (.queued, .failed), .discard: (.failed, .failed)],
        .failed: [.redrive: (.queued, .queued)],
    ]

    @Test(arguments: JobState.allCases)
    func everyEventFromThisStateMovesAsTheTableSays(_ state: JobState) {
        let spentByAttempts = JobLifecycle.Facts(attempts: 10, createdAt: Self.enqueued)
        for event in Self.events {
            let expected = Self.table[state]?[event]
            #expect(Self.lifecycle.next(state, on: event, facts: Self.fresh, now: Self.now) == expected?.0, "\(state) on \(event)")
            #expect(Self.lifecycle.next(state, on: event, facts: spentByAttempts, now: Self.now) == expected?.1,
                    "\(state) on \(event), attempts spent")
        }
    }

    @Test func terminalStatesNeverChangeExceptThatOpsMayRedriveAFailedJob() {
        for state in JobState.allCases where state.isTerminal {
            let allowed = Self.events.filter { Self.lifecycle.next(state, on: $0, facts: Self.fresh, now: Self.now) != nil }
            #expect(allowed == (state == .failed ? [.redrive] : []), "\(state)")
        }
    }

    @Test func theDeadlineSpendsTheBudgetAsSurelyAsTheAttemptCap() {
        let budget = Self.lifecycle.budget
        #expect(!budget.isSpent(attempts: 9, createdAt: Self.enqueued, now: Self.enqueued.addingTimeInterval(3599)))
        #expect(budget.isSpent(attempts: 9, createdAt: Self.enqueued, now: Self.enqueued.addingTimeInterval(3600)))
        #expect(budget.isSpent(attempts: 10, createdAt: Self.enqueued, now: Self.enqueued))
        #expect(Self.lifecycle.next(.verifying, on: .complete(.retry), facts: Self.fresh,
                                    now: Self.enqueued.addingTimeInterval(3600)) == .failed)
    }

    @Test func aReleaseNeverGivesAJobUpItsAttemptIsGivenBack() {
        let old = JobLifecycle.Facts(attempts: 10, createdAt: Self.enqueued.addingTimeInterval(-86_400))
        #expect(Self.lifecycle.next(.verifying, on: .release, facts: old, now: Self.now) == .queued)
    }

    @Test func theGiveUpReasonSaysWhichBudgetRanOut() {
        let budget = RetryBudget(maxAttempts: 3, deadline: .seconds(72 * 3600))
        #expect(budget.reason(attempts: 3, lastError: "HTTP 503") == "gave up after 3 attempts; last error: HTTP 503")
        #expect(budget.reason(attempts: 2, lastError: "HTTP 503") == "gave up after the 72 h deadline; last error: HTTP 503")
    }

    /// Giving up a doubted retry is the lifecycle's alone, with the reasons ops have always read.
    @Test func aReceiptApplesAnswersDoubtIsGivenUpAfterTheDoubtWindow() {
        let lifecycle = JobLifecycle(doubtWindow: .seconds(24 * 3600))
        let facts = JobLifecycle.Facts(attempts: 60, createdAt: Self.enqueued)
        let before = Self.enqueued.addingTimeInterval(24 * 3600 - 1), at = Self.enqueued.addingTimeInterval(24 * 3600)
        #expect(lifecycle.next(.verifying, on: .complete(.receiptDoubted), facts: facts, now: before) == .queued)
        #expect(lifecycle.next(.verifying, on: .complete(.receiptDoubted), facts: facts, now: at) == .failed)
        #expect(lifecycle.next(.verifying, on: .complete(.retry), facts: facts, now: at) == .queued)   // Apple's trouble: 72 h
        #expect(lifecycle.givingUpReason(.receiptDoubted, facts: facts, lastError: "21002 (malformed or temporary)", now: at)
                == "Apple answered 21002 (malformed or temporary) for 24 h; kept for ops (receiptq redrive)")
    }

    @Test func aReceiptWhoseSharedSecretApplesRefusesIsGivenUpAtTheNthAnswer() {
        let lifecycle = JobLifecycle(secretMismatchAttempts: 5)
        for earlier in 0...4 {
            let facts = JobLifecycle.Facts(attempts: earlier + 1, createdAt: Self.enqueued, boundedAnswers: earlier)
            #expect(lifecycle.next(.verifying, on: .complete(.secretRefused), facts: facts, now: Self.now) == (earlier < 4 ? .queued : .failed))
        }
        let fifth = JobLifecycle.Facts(attempts: 5, createdAt: Self.enqueued, boundedAnswers: 4)
        #expect(lifecycle.givingUpReason(.secretRefused, facts: fifth, lastError: "21004 (shared secret refused)", now: Self.now)
                == "Apple refused our shared secret (21004) 5 times: check RECEIPTQ_SHARED_SECRET, then receiptq redrive")
        // A spent budget gives up with the budget's reason.
        let spent = JobLifecycle.Facts(attempts: 1000, createdAt: Self.enqueued, boundedAnswers: 0)
        #expect(lifecycle.givingUpReason(.secretRefused, facts: spent, lastError: "21004 (shared secret refused)", now: Self.now)
                == "gave up after 1000 attempts; last error: 21004 (shared secret refused)")
    }
}
