@testable import ReceiptQueue
import Testing

@Suite("Calls out, summed per minute: a histogram that adds up, and the worst breaker state of each minute")
struct CallTallyTests {
    /// 2026-12-05 10:00:00 UTC.
    let ten = 1_764_928_800.0

    @Test("a call falls in the first bucket whose bound it does not exceed; past the last bound, in the open one",
          arguments: [(0.0, 0), (10.0, 0), (10.5, 1), (2999.0, 14), (3000.0, 14), (3001.0, 15), (5500.0, 17), (30_000.0, 21), (30_001.0, 22)])
    func buckets(milliseconds: Double, bucket: Int) {
        #expect(CallTally.bucket(milliseconds: milliseconds) == bucket)
        #expect(CallTally.bucketCount == 23, "the migration's CHECK holds 23")
    }

    @Test("calls are summed per minute and target, failures apart, and a drain empties the tally")
    func sumsPerMinuteAndTarget() {
        var tally = CallTally()
        tally.record(.verifyReceiptProduction, seconds: 4.2, failed: false, at: ten + 5)
        tally.record(.verifyReceiptProduction, seconds: 0.05, failed: true, at: ten + 59.9)
        tally.record(.verifyReceiptProduction, seconds: 3.9, failed: false, at: ten + 60)
        tally.record(.webhooks, seconds: 0.008, failed: false, at: ten + 30)
        let rows = tally.drain(at: ten + 61)
        #expect(rows.map(\.minute) == [Int(ten), Int(ten), Int(ten) + 60])
        #expect(rows.map(\.target) == [.verifyReceiptProduction, .webhooks, .verifyReceiptProduction])
        #expect(rows[0].calls == 2 && rows[0].failures == 1)
        #expect(rows[0].latencyBuckets[CallTally.bucket(milliseconds: 4200)] == 1 && rows[0].latencyBuckets[CallTally.bucket(milliseconds: 50)] == 1)
        #expect(rows[1].latencyBuckets[0] == 1)
        #expect(rows.allSatisfy { $0.breaker == .closed })
        #expect(tally.drain(at: ten + 62).isEmpty, "drained")
    }

    @Test("a breaker open for three minutes marks each minute it is drained in, and the minute it moved; closed marks nothing")
    func breakersMarkEveryMinuteTheyStayOpen() {
        var tally = CallTally()
        tally.breaker(.serverAPIProduction, .closed, at: ten)
        #expect(tally.drain(at: ten + 1).isEmpty, "a closed breaker and no calls: nothing to write")
        tally.breaker(.verifyReceiptProduction, .open, at: ten + 10)
        tally.breaker(.verifyReceiptProduction, .halfOpen, at: ten + 12)
        #expect(tally.drain(at: ten + 15).map(\.breaker) == [.open], "the worst of the minute")
        #expect(tally.drain(at: ten + 70).map { [$0.minute - Int(ten): $0.breaker] } == [[60: .halfOpen]], "still half-open a minute later")
        tally.breaker(.verifyReceiptProduction, .closed, at: ten + 130)
        #expect(tally.drain(at: ten + 131).isEmpty, "closed again")
    }

    @Test("rows a failed write did not store come back with the next drain, added to what came since")
    func restoredRowsAreCarried() {
        var tally = CallTally()
        tally.record(.webhooks, seconds: 0.1, failed: true, at: ten)
        let failedWrite = tally.drain(at: ten + 1)
        tally.record(.webhooks, seconds: 0.1, failed: false, at: ten + 2)
        tally.restore(failedWrite)
        let rows = tally.drain(at: ten + 3)
        #expect(rows.count == 1 && rows[0].calls == 2 && rows[0].failures == 1 && rows[0].latencyBuckets[CallTally.bucket(milliseconds: 100)] == 2)
    }

    @Test("a quantile is the upper bound of the bucket holding its rank; none without calls; past the last bound, twice it")
    func quantiles() {
        var buckets = [Int](repeating: 0, count: CallTally.bucketCount)
        #expect(CallTally.quantile(0.5, of: buckets) == nil)
        buckets[CallTally.bucket(milliseconds: 3500)] = 98      // ≤ 4000
        buckets[CallTally.bucket(milliseconds: 5500)] = 1       // ≤ 6000
        buckets[CallTally.bucket(milliseconds: 31_000)] = 1     // > 30000
        #expect(CallTally.quantile(0.5, of: buckets) == 4000)
        #expect(CallTally.quantile(0.98, of: buckets) == 4000)
        #expect(CallTally.quantile(0.99, of: buckets) == 6000)
        #expect(CallTally.quantile(1.0, of: buckets) == 60_000)
    }
}
