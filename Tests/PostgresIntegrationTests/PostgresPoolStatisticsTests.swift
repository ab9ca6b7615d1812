import Foundation
import Postgres
import PostgresTesting
import Testing

/// What `/metrics` reads of each pool (`receiptq_db_pool_*`): connections open and in use, work
/// waiting for one, and the time it waited — counted by the pool itself, for every pool the
/// process made, by name.
@Suite("Postgres: a pool's statistics, as the metrics read them")
struct PostgresPoolStatisticsTests {
    @Test func workWaitingForTheOneConnectionIsCountedAndSoIsItsWait() async throws {
        let database = try await ScratchDatabase.create()
        let name = "statistics-\(UUID().uuidString.prefix(8))"
        let pool = PostgresPool(configuration: database.configuration, size: 1, name: name)
        #expect(pool.statistics() == PostgresPoolStatistics(size: 1))          // nothing opened before the first work

        let holder = Task { try await pool.query("SELECT pg_sleep(0.4)") }
        try await Task.sleep(for: .milliseconds(150))
        let waiter = Task { try await pool.query("SELECT 1") }
        try await Task.sleep(for: .milliseconds(100))
        let busy = pool.statistics()
        #expect(busy.open == 1 && busy.inUse == 1 && busy.waiting == 1)

        _ = try await holder.value
        _ = try await waiter.value
        let after = pool.statistics()
        #expect(after.open == 1 && after.inUse == 0 && after.waiting == 0)
        #expect(after.acquired == 2)
        #expect(after.waitSeconds >= 0.1)                                       // the second waited ~0.15 s for the first

        #expect(PostgresPools.statistics().first { $0.name == name }?.statistics == after)
        pool.shutdown()
        #expect(!PostgresPools.statistics().contains { $0.name == name })      // a shut-down pool leaves the metrics
    }

    @Test func aConnectionTheServerDroppedIsNoLongerCountedOpen() async throws {
        let database = try await ScratchDatabase.create()
        let pool = PostgresPool(configuration: database.configuration, size: 1, name: "statistics-dropped")
        defer { pool.shutdown() }
        let pid: Int32 = try await pool.withConnection { $0.backendPID }
        let admin = database.pool(size: 1)
        defer { admin.shutdown() }
        try await admin.query("SELECT pg_terminate_backend($1)", [pid])
        _ = try? await pool.query("SELECT 1")                                   // meets the dead connection
        #expect(pool.statistics().open == 0)
        _ = try await pool.query("SELECT 1")                                    // the next work reopens it
        #expect(pool.statistics().open == 1)
        #expect(pool.statistics().acquired == 3)
    }

    @Test func poolsOfOneNameAddUp() {
        let a = PostgresPoolStatistics(size: 2, open: 2, inUse: 1, waiting: 3, acquired: 10, waitSeconds: 0.5)
        let b = PostgresPoolStatistics(size: 3, open: 1, inUse: 1, waiting: 0, acquired: 5, waitSeconds: 0.25)
        #expect(a + b == PostgresPoolStatistics(size: 5, open: 3, inUse: 2, waiting: 3, acquired: 15, waitSeconds: 0.75))
    }
}
