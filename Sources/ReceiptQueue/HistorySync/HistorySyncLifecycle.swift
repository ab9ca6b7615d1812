import Foundation

/// Where a history sync is in its life; how it moves is `HistorySyncLifecycle`.
public enum HistorySyncState: String, Sendable, CaseIterable, Codable, QueueState {
    case queued
    /// Leased by a worker walking Apple's pages.
    case syncing
    /// The walk reached the last page; `revision` is where the next one starts.
    case synced
    /// Apple does not know the transaction, or the attempts ran out (ops re-queue it with
    /// `receiptq sync`, or the backend asks again).
    case failed

    public static var leased: HistorySyncState? { .syncing }

    public var isTerminal: Bool {
        switch self {
        case .synced, .failed: true
        case .queued, .syncing: false
        }
    }
}

/// The history sync queue's state machine (`receiptq.history_syncs`). Pure. A page imported is a
/// checkpoint, not a state change: the revision moves, so a walk cut short (a lease lost, Apple's
/// trouble, a worker stopped) resumes where it was. Drawn:
///
///     queued ──claim──▶ syncing ──▶ synced | failed
///       ▲  ▲              │ (page: revision kept, still syncing)
///       │  └── retry (attempts left; else failed), lease expired ◀──┘
///       └── request (a restore, a backfill, first sighting again) ◀── synced | failed
///     queued ──covered (another walk of the customer's history reached its last page)──▶ synced
public struct HistorySyncLifecycle: Sendable, Equatable, QueueLifecycle {
    public enum Event: Sendable, Hashable {
        /// A worker leases a due sync (`ClaimHistorySyncs`).
        case claim
        /// The lease holder imported a page (`RecordHistoryPage`, fenced).
        case page
        /// The lease holder records how its walk ended (`FinishHistorySync`, fenced).
        case complete(End)
        /// The lease ran out (`RescueHistorySyncLeases`).
        case leaseExpired
        /// Someone asks for the sync again (`QueueHistorySync`): a finished one runs from its revision.
        case request
        /// A walk of another original transaction of the same customer reached its last page
        /// (`FinishHistorySync`'s cover): Apple's history is the customer's, so it imported this
        /// one's too.
        case covered
    }

    public enum End: Sendable, Hashable {
        case synced
        case failed
        /// Apple's trouble (or the rate budget): try again later from the revision.
        case retry
    }

    public struct Facts: Sendable, Equatable {
        /// Claims so far, this one included.
        public var attempts: Int
        /// A page of it was imported (it has a revision of its own to resume from).
        public var walked: Bool
        /// An operator's backfill naming a user, whose owner rule another walk does not apply.
        public var vouched: Bool
        public init(attempts: Int, walked: Bool = false, vouched: Bool = false) {
            self.attempts = attempts
            self.walked = walked
            self.vouched = vouched
        }
    }

    /// Claims before a walk that keeps failing gives up. Default 20.
    public var maxAttempts: Int

    public static let table = QueueTable(
        name: "receiptq.history_syncs", key: ["original_transaction_id", "environment"], stateCheck: "history_syncs_state_check",
        leaseCheck: "history_syncs_lease_check", attempts: "attempts", budgetStart: nil)

    public init(maxAttempts: Int = 20) {
        self.maxAttempts = maxAttempts
    }

    public func next(_ state: HistorySyncState, on event: Event, facts: Facts, now: Date) -> HistorySyncState? {
        switch (state, event) {
        case (.queued, .claim): .syncing
        case (.syncing, .page): .syncing
        case (.syncing, .complete(.synced)): .synced
        case (.syncing, .complete(.failed)): .failed
        case (.syncing, .complete(.retry)): facts.attempts < maxAttempts ? .queued : .failed
        case (.syncing, .leaseExpired): facts.attempts < maxAttempts ? .queued : .failed
        case (.synced, .request), (.failed, .request): .queued
        case (.queued, .covered): facts.walked || facts.vouched ? nil : .synced
        default: nil
        }
    }
}
