import AppStoreServerAPI
import Foundation
import ReceiptQueue
import Testing
import Worker

/// What ReceiptQueue tells Apple about a refund request, and when it says nothing.
@Suite("Consumption report: consent first, the ledger's facts only, never late")
struct ConsumptionReportTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func lease(consented: Bool? = true, granted: Bool = true, revoked: Bool = false, deadlineIn: TimeInterval = 3600,
                      customerFor days: Double? = 12, purchased: Double = 75, refunded: Double = 0) -> ConsumptionLease {
        ConsumptionLease(notificationUUID: UUID(), attempt: 1, transactionID: "t", environment: "Production",
                         deadline: now.addingTimeInterval(deadlineIn), userID: "u", consented: consented,
                         grantedAt: granted ? now.addingTimeInterval(-60) : nil, revoked: revoked, appAccountToken: nil,
                         firstGrantAt: days.map { now.addingTimeInterval(-$0 * 86_400) }, dollarsPurchased: purchased, dollarsRefunded: refunded)
    }

    @Test("no consent recorded, or consent refused: Apple is told nothing")
    func consent() {
        #expect(ConsumptionReport.decide(Self.lease(consented: nil), now: Self.now) == .noConsent)
        #expect(ConsumptionReport.decide(Self.lease(consented: false), now: Self.now) == .noConsent)
    }

    @Test("past the 12-hour window nothing is sent, even with consent")
    func expired() {
        #expect(ConsumptionReport.decide(Self.lease(deadlineIn: 0), now: Self.now) == .expired)
        #expect(ConsumptionReport.decide(Self.lease(deadlineIn: -1), now: Self.now) == .expired)
    }

    @Test("delivered when granted and not revoked; otherwise undelivered (other reasons); consumption never declared")
    func delivery() {
        let table: [(granted: Bool, revoked: Bool, status: ConsumptionRequest.DeliveryStatus)] =
            [(true, false, .delivered), (true, true, .undeliveredOther), (false, false, .undeliveredOther)]
        for row in table {
            guard case .send(let report) = ConsumptionReport.decide(Self.lease(granted: row.granted, revoked: row.revoked), now: Self.now) else {
                Issue.record("not sent"); continue
            }
            #expect(report.deliveryStatus == row.status, "\(row)")
            #expect(report.customerConsented && !report.sampleContentProvided && report.consumptionPercentage == nil)
        }
    }

    @Test("the operator's refund preference: decline only what was delivered, grant always, or none (the default)")
    func refundPreference() {
        let table: [(policy: RefundPreferencePolicy, delivered: ConsumptionRequest.RefundPreference?, undelivered: ConsumptionRequest.RefundPreference?)] = [
            (.decline, .decline, nil), (.grant, .grantFull, .grantFull), (.noPreference, nil, nil),
        ]
        for row in table {
            for (granted, expected) in [(true, row.delivered), (false, row.undelivered)] {
                guard case .send(let report) = ConsumptionReport.decide(Self.lease(granted: granted), policy: row.policy, now: Self.now) else {
                    Issue.record("not sent"); continue
                }
                #expect(report.refundPreference == expected, "\(row.policy) granted=\(granted)")
            }
        }
        guard case .send(let byDefault) = ConsumptionReport.decide(Self.lease(), now: Self.now) else { Issue.record("not sent"); return }
        #expect(byDefault.refundPreference == nil)
        #expect(RefundPreferencePolicy(rawValue: "no-preference") == .noPreference)
    }
}
