import ReceiptQueue
import Testing

@Suite("Batch dedupe: linear whatever the receipts")
struct BatchDedupeTests {
    /// Receipts of one length for one transaction, each different: the old key (transaction id
    /// and length) put them all in one bucket and compared each new one with every earlier one.
    static func crafted(_ count: Int) -> [NewJob] {
        (0..<count).map { NewJob(receiptData: "QUFB" + String(format: "%08d", $0), transactionID: "t1", userID: "u1") }
    }

    @Test func fiveThousandCraftedReceiptsForOneTransactionCostAboutOneComparisonEach() {
        let jobs = Self.crafted(5_000)
        let dedupe = BatchDedupe(jobs)
        #expect(dedupe.firstOccurrence == Array(jobs.indices))
        // Quadratic would be 12.5 million; hash collisions aside, only the first pair is compared.
        #expect(dedupe.comparisons <= jobs.count, "\(dedupe.comparisons) comparisons")
    }

    @Test func repeatsPointAtTheirFirstOccurrenceWithOneComparisonEach() {
        let distinct = Self.crafted(1_000)
        let jobs = distinct + distinct + distinct
        let dedupe = BatchDedupe(jobs)
        #expect(dedupe.firstOccurrence == Array(distinct.indices) + Array(distinct.indices) + Array(distinct.indices))
        #expect((1_000..<3_000).allSatisfy(dedupe.isRepeat) && !(0..<1_000).contains(where: dedupe.isRepeat))
        #expect(dedupe.comparisons <= jobs.count)
    }

    @Test func jobsDifferingInAnyFieldAreKeptApart() {
        let base = NewJob(receiptData: "QUFB", transactionID: "t", userID: "u")
        let jobs = [base, NewJob(receiptData: "QUFB", transactionID: "t", userID: "v"),
                    NewJob(receiptData: "QUFB", transactionID: "t", userID: "u", productID: "p"),
                    NewJob(receiptData: "QUFC", transactionID: "t", userID: "u"), base]
        #expect(BatchDedupe(jobs).firstOccurrence == [0, 1, 2, 3, 0])
    }
}
