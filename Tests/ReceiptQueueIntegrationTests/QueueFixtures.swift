import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// A migrated scratch database with a queue on it.
struct QueueFixture {
    let database: ScratchDatabase
    let pool: PostgresPool
    let queue: JobQueue

    static func make(poolSize: Int = 4) async throws -> QueueFixture {
        let database = try await ScratchDatabase.migrated()
        let pool = database.pool(size: poolSize)
        return QueueFixture(database: database, pool: pool, queue: JobQueue(pool: pool))
    }

    /// `count` distinct jobs.
    static func jobs(_ count: Int, prefix: String = "r") -> [NewJob] {
        (0..<count).map { NewJob(receiptData: "\(prefix)\($0)", transactionID: "tx-\(prefix)\($0)", userID: "user-\($0 % 7)") }
    }

    func count(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> Int {
        try await pool.query(sql, parameters)[0].decode("count", as: Int.self)
    }

    func state(of id: Int64) async throws -> JobState? {
        try await queue.job(id: id)?.state
    }

    /// Moves every lease's expiry into the past, as if `lease` had run out.
    func expireLeases() async throws {
        try await pool.query("UPDATE receiptq.jobs SET locked_until = now() - interval '1 second' WHERE state = 'verifying'")
    }

    func shutdown() { pool.shutdown() }
}
