import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

@Suite("Enqueue: durable, deduplicated, one round trip per batch")
struct EnqueueTests {
    @Test func enqueueReturnsIdsInInputOrderAfterCommitting() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let jobs = QueueFixture.jobs(250)
        let results = try await fixture.queue.enqueue(jobs)
        #expect(results.count == 250)
        #expect(results.allSatisfy { $0.created && $0.state == .queued })
        #expect(Set(results.map(\.id)).count == 250)
        // Visible from another connection at once: the statement committed before returning.
        let other = fixture.database.pool(size: 1)
        defer { other.shutdown() }
        for (job, result) in zip(jobs, results).prefix(20) {
            let row = try await other.query("SELECT transaction_id FROM receiptq.jobs WHERE id = $1", [result.id])
            #expect(try row[0].decode("transaction_id", as: String.self) == job.transactionID)
        }
    }

    /// The batch's dedupe is linear (`BatchDedupeTests` counts its comparisons); here the whole
    /// statement, as the API's role runs it: every crafted receipt stored once, repeats answered.
    @Test func thousandsOfSameLengthReceiptsForOneTransactionEnqueueInOneBatchEachOnce() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let api = PostgresPool(configuration: try await fixture.database.configuration(as: .api), size: 1)
        defer { api.shutdown() }
        let crafted = (0..<4_000).map { NewJob(receiptData: "QUFB" + String(format: "%08d", $0), transactionID: "t1", userID: "u1") }
        let started = ContinuousClock.now
        let results = try await JobQueue(pool: api).enqueue(crafted + crafted.prefix(1_000))
        print("4,000 crafted receipts (+1,000 repeats) enqueued in \(ContinuousClock.now - started)")
        #expect(results.prefix(4_000).allSatisfy { $0.created })
        #expect(Set(results.prefix(4_000).map(\.id)).count == 4_000)
        #expect(results.suffix(1_000).map(\.id) == results.prefix(1_000).map(\.id) && results.suffix(1_000).allSatisfy { !$0.created })
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs") == 4_000)
    }

    @Test func identicalSubmissionReturnsTheExistingJobInsteadOfASecondOne() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let job = NewJob(receiptData: "AAAA", transactionID: "1000", userID: "u1", productID: "gems", orderID: "o1")
        let first = try await fixture.queue.enqueue([job])[0]
        let again = try await fixture.queue.enqueue([job])[0]
        #expect(first.created)
        #expect(!again.created)
        #expect(again.id == first.id)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs") == 1)
    }

    @Test func lineWrappedBase64DedupesWithTheSameReceiptUnwrapped() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let plain = try await fixture.queue.enqueue([NewJob(receiptData: "QUJDREVGR0g=", transactionID: "7", userID: "u")])[0]
        let wrapped = try await fixture.queue.enqueue([NewJob(receiptData: "QUJD\r\nREVG\n R0g=", transactionID: "7", userID: "u")])[0]
        #expect(wrapped.id == plain.id)
        #expect(!wrapped.created)
    }

    @Test func repeatsWithinOneBatchAreStoredOnce() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let job = NewJob(receiptData: "BBBB", transactionID: "2", userID: "u")
        let results = try await fixture.queue.enqueue([job, QueueFixture.jobs(1)[0], job])
        #expect(results[0].created && results[1].created && !results[2].created)
        #expect(results[2].id == results[0].id)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs") == 2)
    }

    @Test func aResubmissionWithOtherClaimsGetsTheExistingJobNotAConflict() async throws {
        // The app was told it may finish at the 202: a corrected resubmission must not lose the purchase.
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let original = try await fixture.queue.enqueue([NewJob(receiptData: "CCCC", transactionID: "3", userID: "alice", productID: "gems")])[0]
        let corrected = try await fixture.queue.enqueue([NewJob(receiptData: "CCCC", transactionID: "3", userID: "alice", productID: "coins")])[0]
        #expect(!corrected.created)
        #expect(corrected.id == original.id)
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs") == 1)
    }

    @Test func aNewerReceiptForATransactionSupersedesItsResubmitJob() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let stale = try await fixture.queue.enqueue([NewJob(receiptData: "OLD1", transactionID: "9", userID: "u")])[0]
        let lease = try #require(try await fixture.queue.claim(limit: 1, worker: "w", lease: .seconds(30)).first)
        _ = try await fixture.queue.record([.ending(lease, .resubmit(reason: "not in the receipt yet"))], worker: "w")
        #expect(try await fixture.state(of: stale.id) == .resubmit)
        let fresh = try await fixture.queue.enqueue([NewJob(receiptData: "NEW1", transactionID: "9", userID: "u")])[0]
        #expect(fresh.created && fresh.id != stale.id)
        let record = try #require(try await fixture.queue.job(id: stale.id))
        #expect(record.supersededBy == fresh.id)
        #expect(record.state == .resubmit)
    }

    @Test func concurrentIdenticalSubmissionsAllGetTheOneJob() async throws {
        let fixture = try await QueueFixture.make(poolSize: 8)
        defer { fixture.shutdown() }
        let job = NewJob(receiptData: "DDDD", transactionID: "4", userID: "u")
        let ids = try await withThrowingTaskGroup(of: EnqueuedJob.self) { group in
            for _ in 0..<16 { group.addTask { try await fixture.queue.enqueue([job])[0] } }
            return try await group.reduce(into: [EnqueuedJob]()) { $0.append($1) }
        }
        #expect(Set(ids.map(\.id)).count == 1)
        #expect(ids.filter(\.created).count == 1)
    }

    @Test func enqueueWakesListenersWithOneNotificationPerBatch() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let listener = PostgresListener(configuration: fixture.database.configuration, channels: ["receiptq_jobs"])
        defer { listener.stop() }
        var events = listener.events.makeAsyncIterator()
        #expect(await events.next() == .listening)
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(500))
        _ = try await fixture.queue.enqueue(QueueFixture.jobs(10, prefix: "second"))
        try await fixture.pool.query("SELECT pg_notify('receiptq_jobs', 'end-of-test')")
        var wakeUps = 0
        while case .notification(let notification)? = await events.next(), notification.payload != "end-of-test" {
            wakeUps += 1
        }
        #expect(wakeUps == 2)   // 510 jobs in two statements: two wake-ups, not 510
    }

    @Test func invalidFieldsAreRefusedByTheDatabaseNotStoredHalfway() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        let tooLong = NewJob(receiptData: "EEEE", transactionID: String(repeating: "9", count: 65), userID: "u")
        await #expect(throws: PostgresError.self) { try await fixture.queue.enqueue([QueueFixture.jobs(1)[0], tooLong]) }
        #expect(try await fixture.count("SELECT count(*) FROM receiptq.jobs") == 0)
    }
}
