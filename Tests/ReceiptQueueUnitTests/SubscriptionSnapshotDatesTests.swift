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
            #expect(abs(fact.signedAt.timeIntervalSince(raw)) <= 0.0005)
            if try formerDecoder.decode([Date].self, from: formerEncoder.encode([raw])) != [raw] { formerMismatches += 1 }
        }
        // What the former encoding did to some dates (the flaky repeat in SubscriptionLedgerTests).
        #expect(formerMismatches > 0, "the former encoding gave every date back: this test no longer shows the defect")
    }
}
