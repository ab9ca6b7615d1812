import Foundation
import ReceiptQueue
import Testing

/// `HistorySyncLifecycle`, one row per (state, event): a page is a checkpoint that keeps the walk
/// leased; retries and expired leases give up after `maxAttempts`; only a finished sync is asked for
/// again (a running one is left alone); another walk of the customer's history covers a queued one.
@Suite("History sync lifecycle: every state and event")
struct HistorySyncLifecycleTests {
    typealias S = HistorySyncState
    typealias E = HistorySyncLifecycle.Event

    static let rows: [(S, E, Int, S?)] = [
        (.queued, .claim, 1, .syncing),
        (.queued, .page, 1, nil),
        (.queued, .request, 1, nil),
        (.queued, .leaseExpired, 1, nil),
        (.syncing, .page, 3, .syncing),
        (.syncing, .complete(.synced), 3, .synced),
        (.syncing, .complete(.failed), 3, .failed),
        (.syncing, .complete(.retry), 3, .queued),
        (.syncing, .complete(.retry), 20, .failed),
        (.syncing, .leaseExpired, 3, .queued),
        (.syncing, .leaseExpired, 20, .failed),
        (.syncing, .request, 3, nil),
        (.syncing, .claim, 3, nil),
        (.synced, .request, 3, .queued),
        (.failed, .request, 20, .queued),
        (.synced, .claim, 3, nil),
        (.failed, .complete(.synced), 3, nil),
        (.queued, .covered, 0, .synced),
        (.syncing, .covered, 3, nil),
        (.synced, .covered, 3, nil),
        (.failed, .covered, 20, nil),
    ]

    /// A queued sync with a revision of its own, or an operator's vouched backfill, is not covered.
    @Test func aWalkedOrVouchedSyncIsNotCovered() {
        let lifecycle = HistorySyncLifecycle()
        #expect(lifecycle.next(.queued, on: .covered, facts: .init(attempts: 2, walked: true), now: Date()) == nil)
        #expect(lifecycle.next(.queued, on: .covered, facts: .init(attempts: 0, vouched: true), now: Date()) == nil)
    }

    @Test(arguments: rows.indices)
    func eachTransition(_ index: Int) {
        let (state, event, attempts, expected) = Self.rows[index]
        let next = HistorySyncLifecycle().next(state, on: event, facts: .init(attempts: attempts), now: Date())
        #expect(next == expected, "\(state) on \(event) after \(attempts) claims")
    }

    @Test func terminalAndLeasedStatesAreTheSchemasOwn() {
        #expect(S.allCases.filter(\.isTerminal) == [.synced, .failed])
        #expect(S.leased == .syncing)
        #expect(HistorySyncLifecycle.table.name == "receiptq.history_syncs")
    }
}
