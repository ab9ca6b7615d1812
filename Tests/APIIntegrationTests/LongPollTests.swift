import Foundation
import ReceiptQueue
import Testing

@Suite("GET /v1/receipts/{id}")
struct LongPollTests {
    @Test("a pending job shows its attempts and next try")
    func pendingState() async throws {
        let api = try await APIHarness.start()
        let id = try #require(try await api.post("/v1/receipts", json: APIHarness.receipt("p")).json["id"] as? Int)
        let answer = try await api.get("/v1/receipts/\(id)")
        #expect(answer.status == 200)
        #expect(answer.json["state"] as? String == "queued")
        #expect(answer.json["final"] as? Bool == false)
        #expect(answer.json["attempts"] as? Int == 0)
        #expect(answer.json["next_attempt_at"] is String)
        await api.stop()
    }

    /// The API never polls on a timer, so an answer long before the 10 s wait ran out can only
    /// come from the outcome's NOTIFY. The latency is printed (on an idle machine it is a few
    /// milliseconds); the bound is half the wait because CI runs this beside CPU-heavy end-to-end
    /// tests (a 1 s bound was once missed by 35 ms there).
    @Test("?wait= is woken by the job's outcome, not by the wait running out")
    func longPollWakesOnOutcome() async throws {
        let api = try await APIHarness.start()
        let id = try #require(try await api.post("/v1/receipts", json: APIHarness.receipt("w")).json["id"] as? Int)
        let waiting = Task { () throws -> (HTTPExchange, ContinuousClock.Instant) in
            let answer = try await api.get("/v1/receipts/\(id)?wait=10")
            return (answer, ContinuousClock.now)
        }
        try await Task.sleep(for: .milliseconds(500))  // the request is parked by now
        let leases = try await api.queue.claim(limit: 1, worker: "test-worker", lease: .seconds(60))
        let lease = try #require(leases.first)
        _ = try await api.queue.record([FinishedAttempt.ending(lease, .rejected(reason: "test says no"))], worker: "test-worker")
        let committed = ContinuousClock.now
        let (answer, answered) = try await waiting.value
        #expect(answer.status == 200)
        #expect(answer.json["state"] as? String == "rejected")
        #expect(answer.json["reason"] as? String == "test says no")
        #expect(answer.json["final"] as? Bool == true)
        print("long-poll answered \(answered - committed) after the outcome committed")
        #expect(answered - committed < .seconds(5), "woke \(answered - committed) after the commit")
        await api.stop()
    }

    @Test("?wait= returns the pending state once the wait runs out")
    func longPollTimesOut() async throws {
        let api = try await APIHarness.start()
        let id = try #require(try await api.post("/v1/receipts", json: APIHarness.receipt("t")).json["id"] as? Int)
        let start = ContinuousClock.now
        let answer = try await api.get("/v1/receipts/\(id)?wait=0.3")
        let elapsed = ContinuousClock.now - start
        #expect(answer.status == 200)
        #expect(answer.json["state"] as? String == "queued")
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(3))
        await api.stop()
    }
}
