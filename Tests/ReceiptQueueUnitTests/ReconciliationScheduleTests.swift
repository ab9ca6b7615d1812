import Foundation
import ReceiptQueue
import Testing

/// `ReconciliationSchedule`: when each state is checked next, and the steady-state cost per
/// subscriber that docs/benchmarks.md reports (these figures are that table's source).
@Suite("Reconciliation schedule: due-first, and what it costs")
struct ReconciliationScheduleTests {
    let schedule = ReconciliationSchedule()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let hour: TimeInterval = 3600
    let day: TimeInterval = 86_400

    @Test func activeIsCheckedJustAfterItsPeriodEndsAndAtLeastWeekly() {
        #expect(schedule.next(.active, expiresAt: now + 2 * day, gracePeriodExpiresAt: nil, now: now) == now + 2 * day + hour)
        #expect(schedule.next(.active, expiresAt: now + 30 * day, gracePeriodExpiresAt: nil, now: now) == now + 7 * day)
        // The period ended and no renewal was seen: look again in an hour, not a week.
        #expect(schedule.next(.active, expiresAt: now - day, gracePeriodExpiresAt: nil, now: now) == now + hour)
        #expect(schedule.next(.active, expiresAt: nil, gracePeriodExpiresAt: nil, now: now) == now + 7 * day)
    }

    @Test func movingStatesAreCheckedOftenAndEndedOnesRarely() {
        #expect(schedule.next(.gracePeriod, expiresAt: nil, gracePeriodExpiresAt: now + 3 * day, now: now) == now + 6 * hour)
        #expect(schedule.next(.gracePeriod, expiresAt: nil, gracePeriodExpiresAt: now + 2 * hour, now: now) == now + 3 * hour)
        #expect(schedule.next(.billingRetry, expiresAt: nil, gracePeriodExpiresAt: nil, now: now) == now + 12 * hour)
        #expect(schedule.next(.expired, expiresAt: now - day, gracePeriodExpiresAt: nil, now: now) == now + 30 * day)
        #expect(schedule.next(.revoked, expiresAt: nil, gracePeriodExpiresAt: nil, now: now) == now + 30 * day)
    }

    /// docs/benchmarks.md, "Reconciliation's Apple requests": requests per subscriber per day.
    @Test func costPerSubscriberPerDay() {
        func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        #expect(rounded(schedule.checksPerDay(.active, period: 30 * day)) == 0.167)    // 5 checks a monthly period
        #expect(rounded(schedule.checksPerDay(.active, period: 7 * day)) == 0.143)     // 1 a weekly period
        #expect(rounded(schedule.checksPerDay(.active, period: 365 * day)) == 0.145)   // 53 a year
        #expect(schedule.checksPerDay(.gracePeriod, period: 30 * day) == 4)
        #expect(schedule.checksPerDay(.billingRetry, period: 30 * day) == 2)
        #expect(rounded(schedule.checksPerDay(.expired, period: 30 * day)) == 0.033)
        // A population: 90 % active monthly, 3 % in grace, 2 % in billing retry, 5 % expired.
        let mix = 0.90 * schedule.checksPerDay(.active, period: 30 * day) + 0.03 * schedule.checksPerDay(.gracePeriod, period: 30 * day)
            + 0.02 * schedule.checksPerDay(.billingRetry, period: 30 * day) + 0.05 * schedule.checksPerDay(.expired, period: 30 * day)
        #expect(rounded(mix) == 0.312)
        // Get All Subscription Statuses' own production budget (50/s) covers this many such subscribers a day.
        #expect((50 * day / mix / 1_000_000).rounded() == 14)
    }
}
