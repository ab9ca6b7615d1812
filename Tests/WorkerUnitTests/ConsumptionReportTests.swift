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

    @Test("delivered when granted and not revoked; otherwise 'not delivered, other reasons'")
    func delivery() {
        let table: [(granted: Bool, revoked: Bool, status: Int)] = [(true, false, 0), (true, true, 5), (false, false, 5)]
        for row in table {
            guard case .send(let report) = ConsumptionReport.decide(Self.lease(granted: row.granted, revoked: row.revoked), now: Self.now) else {
                Issue.record("not sent"); continue
            }
            #expect(report.deliveryStatus == row.status, "\(row)")
            #expect(report.customerConsented && report.platform == 1 && report.consumptionStatus == 0 && report.playTime == 0)
        }
    }

    @Test("tenure and lifetime dollars in Apple's bands; unknown stays undeclared")
    func bands() {
        let tenure: [(Double?, Int)] = [(nil, 0), (1, 1), (5, 2), (12, 3), (60, 4), (120, 5), (300, 6), (400, 7)]
        for (days, band) in tenure {
            guard case .send(let report) = ConsumptionReport.decide(Self.lease(customerFor: days), now: Self.now) else { continue }
            #expect(report.accountTenure == band, "\(String(describing: days)) days")
        }
        let dollars: [(Double, Int)] = [(0, 1), (0.99, 2), (75, 3), (250, 4), (999, 5), (1500, 6), (2500, 7)]
        for (amount, band) in dollars {
            guard case .send(let report) = ConsumptionReport.decide(Self.lease(purchased: amount, refunded: amount), now: Self.now) else { continue }
            #expect(report.lifetimeDollarsPurchased == band && report.lifetimeDollarsRefunded == band, "$\(amount)")
        }
    }
}
