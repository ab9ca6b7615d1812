import Foundation
@testable import ReceiptQueue
import Testing

/// A subscription's snapshot goes through JSON between facts; a fact applied twice must find
/// its own dates there, bit for bit, or the model takes the repeat for a later fact.
@Suite("Subscription snapshots keep Apple's millisecond dates exactly")
struct SubscriptionSnapshotDatesTests {
    @Test func aFactsDatesSurviveTheSnapshotRoundTripWhateverTheirBits() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = Date.wholeMillisecondsEncoding
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = Date.wholeMillisecondsDecoding
        let formerEncoder = JSONEncoder()
        formerEncoder.dateEncodingStrategy = .millisecondsSince1970
        let formerDecoder = JSONDecoder()
        formerDecoder.dateDecodingStrategy = .millisecondsSince1970
        var formerMismatches = 0
        for _ in 0..<2_000 {
            let raw = Date(timeIntervalSince1970: Double.random(in: 1.6e9...1.9e9))
            let period = SubscriptionTransaction(transactionID: "1", productID: "p", purchasedAt: raw, expiresAt: raw, isRenewal: false)
            let fact = SubscriptionFact(source: .notification(type: "DID_RENEW", subtype: nil), originalTransactionID: "1",
                                        environment: "Production", signedAt: raw, transaction: period)
            let dates = [fact.signedAt, period.purchasedAt!, period.expiresAt!]
            #expect(try decoder.decode([Date].self, from: encoder.encode(dates)) == dates)
            // Rounded to Apple's whole millisecond: half a millisecond at most, plus a Double's
            // resolution at these magnitudes (2.4e-7 s; the bare 0.0005 failed one run in a few hundred).
            #expect(abs(fact.signedAt.timeIntervalSince(raw)) <= 0.0005 + 1e-6)
            if try formerDecoder.decode([Date].self, from: formerEncoder.encode([raw])) != [raw] { formerMismatches += 1 }
        }
        // What the former encoding did to some dates (the flaky repeat in SubscriptionLedgerTests).
        #expect(formerMismatches > 0, "the former encoding gave every date back: this test no longer shows the defect")
    }

    /// Events and `/subscriptions` say Apple's dates to the millisecond: never one early because
    /// the date's binary value sits a hair below it.
    @Test func eventsSayApplesMillisecondExactly() {
        let parser = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: 1_600_000_000_000...1_900_000_000_000)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let said = SubscriptionChange.iso8601(date)
            #expect(said.hasSuffix("Z") && said.count == 24, "\(said)")
            let parsed = try? parser.parse(said)
            #expect(parsed.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == milliseconds, "\(milliseconds) said as \(said)")
            let seconds = milliseconds / 1000, fraction = milliseconds % 1000
            #expect(said.hasSuffix(String(format: ".%03dZ", fraction)), "\(milliseconds) said as \(said)")
            #expect(Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds))).dropLast() == said.dropLast(5))
        }
        #expect(SubscriptionChange.iso8601(Date(timeIntervalSince1970: 0.001)) == "1970-01-01T00:00:00.001Z")
        #expect(SubscriptionChange.iso8601(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
    }
}
