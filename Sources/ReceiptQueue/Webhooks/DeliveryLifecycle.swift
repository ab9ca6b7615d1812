import Foundation

/// Where a webhook delivery is in its life; how it moves is `DeliveryLifecycle`.
public enum DeliveryState: String, Sendable, CaseIterable, Codable, QueueState {
    case queued
    /// Leased by a deliverer that is POSTing it.
    case delivering
    /// The receiver acknowledged it (2xx).
    case delivered
    /// Given up after the retry deadline: kept, visible in `webhook_health`, re-drivable.
    case failed

    public static var leased: DeliveryState? { .delivering }

    public var isTerminal: Bool { self == .delivered || self == .failed }
}

/// The webhook delivery queue's state machine (`receiptq.deliveries`). Pure. Drawn:
///
///     queued ──claim──▶ delivering ──2xx──▶ delivered
///        ▲                 │
///        ├── retry ◀───────┤ (past the deadline: failed ──redrive (ops)──▶ queued)
///        ├── release ◀─────┤ (not attempted: the attempt given back)
///        └── lease expired ┘
///
/// The budget is a deadline only (default 72 h), counted from the delivery's creation or its last
/// re-drive (`budget_from`): a receiver that is down for a weekend loses nothing.
public struct DeliveryLifecycle: Sendable, Equatable, QueueLifecycle {
    public enum Event: Sendable, Hashable {
        /// A deliverer leases the oldest pending delivery of an (endpoint, user) (`ClaimDeliveries`).
        case claim
        /// The lease holder records how its POST ended (`RecordDeliveries`, fenced).
        case complete(End)
        /// The lease ran out (`RescueExpiredDeliveries`).
        case leaseExpired
        /// Ops put failed deliveries back with a fresh deadline (`RedriveFailedDeliveries`).
        case redrive
    }

    public enum End: String, Sendable, Hashable, CaseIterable {
        case delivered
        /// Try again after a delay, unless the deadline has passed.
        case retry
        /// Give up now.
        case failed
        /// Not attempted (shutdown, the endpoint's breaker opened): the attempt is given back.
        case release
    }

    public struct Facts: Sendable, Equatable {
        /// When the deadline started counting: creation, or the last re-drive.
        public var budgetFrom: Date
        public init(budgetFrom: Date) { self.budgetFrom = budgetFrom }
    }

    public static let table = QueueTable(
        name: "receiptq.deliveries", key: ["endpoint_id", "event_sequence"], stateCheck: "deliveries_state_check",
        leaseCheck: "deliveries_lease_check", attempts: "attempts", budgetStart: "budget_from")

    /// Default 72 h.
    public var deadline: Duration

    public init(deadline: Duration = .seconds(72 * 3600)) {
        self.deadline = deadline
    }

    /// The deadline has passed: a retry or an expired lease gives the delivery up.
    public func isSpent(_ facts: Facts, now: Date) -> Bool {
        now.timeIntervalSince(facts.budgetFrom) >= deadline.seconds
    }

    public func next(_ state: DeliveryState, on event: Event, facts: Facts, now: Date) -> DeliveryState? {
        switch (state, event) {
        case (.queued, .claim): return .delivering
        case (.delivering, .complete(.delivered)): return .delivered
        case (.delivering, .complete(.failed)): return .failed
        case (.delivering, .complete(.retry)), (.delivering, .leaseExpired): return isSpent(facts, now: now) ? .failed : .queued
        case (.delivering, .complete(.release)): return .queued
        case (.failed, .redrive): return .queued
        default: return nil
        }
    }
}
