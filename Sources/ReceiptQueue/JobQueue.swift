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

    /// See `EnqueueBatch` (receipts) and `EnqueueTransactions` (the other kinds): one statement
    /// each, results in input order. Returns after the commit: a returned id is durable.
    public func enqueue(_ jobs: [NewJob]) async throws -> [EnqueuedJob] {
        if jobs.allSatisfy({ $0.kind == .receipt }) {
            return try await pool.withConnection { try EnqueueBatch.run(jobs, on: $0) }
        }
        let receipts = jobs.indices.filter { jobs[$0].kind == .receipt }
        let others = jobs.indices.filter { jobs[$0].kind != .receipt }
        return try await pool.transaction { connection in
            var results = [EnqueuedJob?](repeating: nil, count: jobs.count)
            for (index, result) in zip(receipts, try EnqueueBatch.run(receipts.map { jobs[$0] }, on: connection)) { results[index] = result }
            for (index, result) in zip(others, try EnqueueTransactions.run(others.map { jobs[$0] }, on: connection)) { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// See `ClaimBatch`.
    public func claim(limit: Int, kind: JobKind = .receipt, worker: String, lease: Duration) async throws -> [JobLease] {
        try await pool.withConnection { try ClaimBatch.run(limit: limit, kind: kind, worker: worker, lease: lease, on: $0) }
    }

    /// Records finished attempts — grants and outcomes — in one transaction; see `RecordOutcomes`.
    public func record(_ attempts: [FinishedAttempt], worker: String,
                       ownership: OwnershipPolicy = OwnershipPolicy()) async throws -> RecordOutcomes.Result {
        let lifecycle = self.lifecycle
        return try await pool.transaction {
            try RecordOutcomes.run(attempts, worker: worker, lifecycle: lifecycle, ownership: ownership, on: $0)
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

