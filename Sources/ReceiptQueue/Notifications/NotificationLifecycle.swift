import Foundation

/// Where a stored App Store notification is in its life; how it moves is `NotificationLifecycle`.
public enum NotificationQueueState: String, Sendable, CaseIterable, Codable, QueueState {
    case queued
    /// Leased by a worker that verifies it again and applies it.
    case applying
    /// Its actions are in the ledger, with their events.
    case applied
    /// It cannot be applied as it is, or our trouble outlasted the budget: kept, re-drivable.
    case failed
    /// Apple signed it, but this configuration refuses it (another bundle id, app id, environment,
    /// an untrusted root): stored so, never applied until re-driven (migration 0016).
    case quarantined

    public static var leased: NotificationQueueState? { .applying }

    public var isTerminal: Bool {
        switch self {
        case .applied, .failed, .quarantined: true
        case .queued, .applying: false
        }
    }
}

/// The notification queue's state machine (`receiptq.notifications`). Pure. Drawn:
///
///     queued ──claim──▶ applying ──applied──▶ applied
///        ▲                 │  └──failed (cannot be applied)──▶ failed ──redrive (ops)──▶ queued
///        ├── retry ◀───────┤       (a retry or an expired lease past its budget ends failed too)
///        └── lease expired ┘
///     quarantined (stored so by the API) ──release quarantine (ops)──▶ queued
///
/// Two budgets, as the product has always had them: a worker gives up retrying (our own trouble:
/// the database, a lost connection) after `maxAttempts` claims; the scheduler gives up a
/// notification whose leases keep expiring (one that kills every worker that takes it) after
/// `maxExpiredLeases` claims.
public struct NotificationLifecycle: Sendable, Equatable, QueueLifecycle {
    public enum Event: Sendable, Hashable {
        /// A worker leases a due `queued` notification, the oldest open one of its purchase
        /// (`ClaimNotifications`); `attempts` goes up by one.
        case claim
        /// The lease holder ends its attempt (`ApplyNotification`, `FinishNotification`).
        case complete(End)
        /// The lease ran out (`RescueNotificationLeases`).
        case leaseExpired
        /// Ops put a `failed` notification back (`RedriveNotifications`).
        case redrive
        /// Ops put a `quarantined` one back once the configuration is fixed (`RedriveNotifications`).
        case releaseQuarantine
    }

    /// How one attempt ended.
    public enum End: String, Sendable, Hashable, CaseIterable {
        case applied
        /// Our trouble: try again later, unless `maxAttempts` is spent.
        case retry
        /// It cannot be applied (no longer verifies, an action refused): `failed`.
        case failed
    }

    public struct Facts: Sendable, Equatable {
        /// Claims so far (after this attempt's claim).
        public var attempts: Int
        public init(attempts: Int) { self.attempts = attempts }
    }

    public static let table = QueueTable(
        name: "receiptq.notifications", key: ["notification_uuid"], stateCheck: "notifications_state_check",
        leaseCheck: "notifications_lease_check", attempts: "attempts")

    /// Claims after which a worker's retry gives up. Default 30 (about a day at the retry cap).
    public var maxAttempts: Int
    /// Claims after which an expired lease gives up. Default 50.
    public var maxExpiredLeases: Int

    public init(maxAttempts: Int = 30, maxExpiredLeases: Int = 50) {
        self.maxAttempts = maxAttempts
        self.maxExpiredLeases = maxExpiredLeases
    }

    /// Where a notification starts when the API stores it (`EnqueueNotifications`): quarantined
    /// when this configuration refuses it (`quarantineReason`, kept as its last error), else
    /// queued.
    public static func arrival(quarantineReason: String?) -> NotificationQueueState {
        quarantineReason == nil ? .queued : .quarantined
    }

    public func next(_ state: NotificationQueueState, on event: Event, facts: Facts, now: Date) -> NotificationQueueState? {
        switch (state, event) {
        case (.queued, .claim): return .applying
        case (.applying, .complete(.applied)): return .applied
        case (.applying, .complete(.failed)): return .failed
        case (.applying, .complete(.retry)): return facts.attempts >= maxAttempts ? .failed : .queued
        case (.applying, .leaseExpired): return facts.attempts >= maxExpiredLeases ? .failed : .queued
        case (.failed, .redrive): return .queued
        case (.quarantined, .releaseQuarantine): return .queued
        default: return nil
        }
    }
}
