import Foundation
import Postgres
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// A job's traceparent (tracing on, migration 0038) goes where its trace goes: from the submission
/// to the claim, to the event its verdict appends; a malformed one is refused by the database.
@Suite("Trace parents: stored with the job, handed to the worker and the event")
struct TraceParentStorageTests {
    static let traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func theClaimAndTheEventCarryTheJobsTraceParent() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        var jobs = QueueFixture.jobs(2)
        jobs[0].traceParent = Self.traceParent
        var signed = NewJob.transactionID("9000", userID: "u-traced")
        signed.traceParent = Self.traceParent
        let ids = try await fixture.queue.enqueue(jobs + [signed]).map(\.id)
        let receipts = try await fixture.queue.claim(limit: 10, worker: "w", lease: .seconds(30))
        #expect(receipts.first { $0.id == ids[0] }?.traceParent == Self.traceParent)
        #expect(receipts.first { $0.id == ids[1] }?.traceParent == nil, "a job queued untraced has none")
        let claims = try await fixture.queue.claim(limit: 10, kind: .transactionID, worker: "w", lease: .seconds(30))
        #expect(claims.first?.traceParent == Self.traceParent, "transaction submissions keep theirs too")
        let traced = try #require(receipts.first { $0.id == ids[0] })
        #expect(traced.logMetadata["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736", "the worker's log lines about it carry its trace id")

        _ = try await fixture.queue.record(receipts.map { FinishedAttempt.ending($0, .rejected(reason: "test")) }, worker: "w")
        let events = try await fixture.pool.query("SELECT job_id, trace_parent FROM receiptq.events ORDER BY job_id")
        let byJob = Dictionary(uniqueKeysWithValues: try events.map { (try $0.decode("job_id", as: Int64.self), try $0.decodeIfPresent("trace_parent", as: String.self)) })
        #expect(byJob[ids[0]] == .some(Self.traceParent))
        #expect(byJob[ids[1]] == .some(nil))
    }

    @Test func aMalformedTraceParentIsRefusedByTheDatabase() async throws {
        let fixture = try await QueueFixture.make()
        defer { fixture.shutdown() }
        var jobs = QueueFixture.jobs(1)
        jobs[0].traceParent = "00-NOT-A-TRACE"
        await #expect(throws: PostgresError.self) { try await fixture.queue.enqueue(jobs) }
    }
}
