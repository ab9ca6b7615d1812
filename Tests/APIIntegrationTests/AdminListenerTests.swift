import Foundation
import Postgres
import ReceiptQueue
import Testing

@Suite("Admin listener: readiness of its own, shutdown answers long-polls")
struct AdminListenerTests {
    @Test("readiness runs on a connection of its own: it answers while the receipts' pool is stuck")
    func readinessDoesNotUseTheReceiptsPool() async throws {
        let api = try await APIHarness.start { $0.poolSize = 1 }
        // The API's only connection blocks on a lock the test holds: enqueueing cannot finish.
        let locker = api.database.pool(size: 1)
        defer { locker.shutdown() }
        try await locker.withConnection { try $0.execute(script: "BEGIN; LOCK TABLE receiptq.jobs IN ACCESS EXCLUSIVE MODE") }
        let stuck = Task { try await api.post("/v1/receipts", json: APIHarness.receipt("stuck")) }
        try await Task.sleep(for: .milliseconds(500))
        let readiness = try await api.admin("/readyz")
        #expect(readiness.status == 200)
        #expect(stuck.isCancelled == false)
        #expect(try await locker.query("SELECT count(*) FROM receiptq.jobs")[0].decode("count", as: Int.self) == 0,
                "the enqueue is still stuck behind the lock while readiness answered")
        #expect(try await api.count("""
            SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '%-readiness'
            """) == 1)
        try await locker.withConnection { try $0.execute(script: "ROLLBACK") }
        #expect(try await stuck.value.status == 202)
        await api.stop()
    }

    @Test("a graceful shutdown answers waiting long-polls at once with the current state")
    func shutdownAnswersLongPolls() async throws {
        let api = try await APIHarness.start()
        let id = try #require(try await api.post("/v1/receipts", json: APIHarness.receipt("s")).json["id"] as? Int)
        let waiting = Task { try await api.get("/v1/receipts/\(id)?wait=25") }
        try await Task.sleep(for: .milliseconds(500))
        let stopping = ContinuousClock.now
        await api.stop()
        let answer = try await waiting.value
        #expect(answer.status == 200)
        #expect(answer.json["state"] as? String == "queued")
        #expect(ContinuousClock.now - stopping < .seconds(10), "answered \(ContinuousClock.now - stopping) after shutdown began")
    }
}
