import Foundation
import ReceiptQueue
import Testing

/// `NotificationLifecycle`, one row per (state, event): a worker gives up retrying after
/// `maxAttempts` claims and an expired lease after `maxExpiredLeases`; only ops bring a failed or
/// quarantined notification back; a notification arrives queued, or quarantined with its reason.
@Suite("Notification lifecycle: every state and event")
struct NotificationLifecycleTests {
    typealias S = NotificationQueueState
    typealias E = NotificationLifecycle.Event

    static let lifecycle = NotificationLifecycle(maxAttempts: 5, maxExpiredLeases: 8)

    static let rows: [(S, E, Int, S?)] = [
        (.queued, .claim, 1, .applying),
        (.queued, .complete(.applied), 1, nil),
        (.queued, .leaseExpired, 1, nil),
        (.applying, .complete(.applied), 1, .applied),
        (.applying, .complete(.failed), 1, .failed),
        (.applying, .complete(.retry), 4, .queued),
        (.applying, .complete(.retry), 5, .failed),
        (.applying, .leaseExpired, 7, .queued),
        (.applying, .leaseExpired, 8, .failed),
        (.applying, .claim, 1, nil),
        (.applied, .redrive, 1, nil),
        (.applied, .claim, 1, nil),
        (.failed, .redrive, 5, .queued),
        (.failed, .releaseQuarantine, 5, nil),
        (.quarantined, .releaseQuarantine, 0, .queued),
        (.quarantined, .claim, 0, nil),
        (.quarantined, .redrive, 0, nil),
    ]

    @Test(arguments: rows.indices)
    func eachTransition(_ index: Int) {
        let (state, event, attempts, expected) = Self.rows[index]
        #expect(Self.lifecycle.next(state, on: event, facts: .init(attempts: attempts), now: Date()) == expected,
                "\(state) on \(event) after \(attempts) claims")
    }

    @Test func aNotificationArrivesQueuedOrQuarantinedWithItsReason() {
        #expect(NotificationLifecycle.arrival(quarantineReason: nil) == .queued)
        #expect(NotificationLifecycle.arrival(quarantineReason: "bundle id com.other.app is not this app's") == .quarantined)
    }
}
