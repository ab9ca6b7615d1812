import Foundation
import Postgres

/// The queue's operations for async callers (API, workers, benchmarks): each is one statement
/// on a pool connection, run on the pool's own threads.
public struct JobQueue: Sendable {
    public let pool: PostgresPool
    /// Decides where each recorded attempt leaves its job (and when a retry gives up).
    public let lifecycle: JobLifecycle

    public init(pool: PostgresPool, lifecycle: JobLifecycle = JobLifecycle()) {
        self.pool = pool
        self.lifecycle = lifecycle
    }

    /// See `EnqueueBatch`. Returns after the commit: a returned id is durable.
    public func enqueue(_ jobs: [NewJob]) async throws -> [EnqueuedJob] {
        try await pool.withConnection { try EnqueueBatch.run(jobs, on: $0) }
    }

    /// See `ClaimBatch`.
    public func claim(limit: Int, worker: String, lease: Duration) async throws -> [JobLease] {
        try await pool.withConnection { try ClaimBatch.run(limit: limit, worker: worker, lease: lease, on: $0) }
    }

    /// Records finished attempts — grants and outcomes — in one transaction; see `RecordOutcomes`.
    public func record(_ attempts: [FinishedAttempt], worker: String) async throws -> RecordOutcomes.Result {
        let lifecycle = self.lifecycle
        return try await pool.transaction {
            try RecordOutcomes.run(attempts, worker: worker, lifecycle: lifecycle, on: $0)
        }
    }

    /// See `OutageNotice`.
    public func announce(_ notice: OutageNotice) async throws {
        try await pool.withConnection { try notice.send(on: $0) }
    }

    /// One job as it is now, or nil.
    public func job(id: Int64) async throws -> JobRecord? {
        try await pool.withConnection { try JobRecord.fetch(id: id, on: $0) }
    }
}

