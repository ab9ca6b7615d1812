import Foundation

/// Where an answer to Apple's CONSUMPTION_REQUEST is in its life; how it moves is
/// `ConsumptionLifecycle`.
public enum ConsumptionState: String, Sendable, CaseIterable, Codable, QueueState {
    case queued
    /// Leased by a worker that is sending Send Consumption Information.
    case sending
    /// Apple took the answer.
    case sent
    /// The customer did not consent: Apple is told nothing.
    case noConsent = "no_consent"
    /// The 12-hour window closed unanswered: never answered late.
    case expired
    /// Apple refused the answer, or no time was left to retry.
    case failed

    public static var leased: ConsumptionState? { .sending }

    public var isTerminal: Bool {
        switch self {
        case .sent, .noConsent, .expired, .failed: true
        case .queued, .sending: false
        }
    }
}

/// The consumption request queue's state machine (`receiptq.consumption_requests`). Pure. The
/// budget is Apple's deadline (12 h after the request): nothing is claimed, retried or sent past
/// it. Drawn:
///
///     queued ──claim (deadline ahead)──▶ sending ──▶ sent | no_consent | failed
///        ▲  │                              │
///        │  └──deadline passed──▶ expired ◀┤ (lease expired past the deadline)
///        ├── retry (due before the deadline; else failed) ◀──┤
///        └── lease expired (deadline ahead) ◀────────────────┘
public struct ConsumptionLifecycle: Sendable, Equatable, QueueLifecycle {
    public enum Event: Sendable, Hashable {
        /// A worker leases a due request whose deadline is ahead (`ClaimConsumptionRequests`).
        case claim
        /// The lease holder records how its attempt ended (`FinishConsumptionRequest`, fenced).
        case complete(End)
        /// The lease ran out (`RescueNotificationLeases`).
        case leaseExpired
        /// The scheduler looks at a waiting request (`ExpireConsumptionRequests`).
        case deadlineCheck
    }

    public enum End: Sendable, Hashable {
        case sent
        case noConsent
        case failed
        /// Apple's temporary trouble: try again at `at`, which must come before the deadline.
        case retry(at: Date)
    }

    public struct Facts: Sendable, Equatable {
        /// Apple's deadline for the answer.
        public var deadline: Date
        public init(deadline: Date) { self.deadline = deadline }
    }

    public static let table = QueueTable(
        name: "receiptq.consumption_requests", key: ["notification_uuid"], stateCheck: "consumption_requests_state_check",
        leaseCheck: "consumption_requests_lease_check", attempts: "attempts", budgetStart: nil)

    public init() {}

    public func next(_ state: ConsumptionState, on event: Event, facts: Facts, now: Date) -> ConsumptionState? {
        let open = now < facts.deadline
        switch (state, event) {
        case (.queued, .claim): return open ? .sending : nil
        case (.sending, .complete(.sent)): return .sent
        case (.sending, .complete(.noConsent)): return .noConsent
        case (.sending, .complete(.failed)): return .failed
        case (.sending, .complete(.retry(let at))): return at < facts.deadline ? .queued : .failed
        case (.sending, .leaseExpired): return open ? .queued : .expired
        case (.queued, .deadlineCheck): return open ? nil : .expired
        default: return nil
        }
    }
}
