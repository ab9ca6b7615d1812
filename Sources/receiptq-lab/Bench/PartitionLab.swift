import Foundation
import Postgres
import ReceiptQueue

/// The steps of `bench partitions`, in the scratch database: prepare (read the real table's
/// shape, make the partitioned parent beside it), then for each layout load, index, vacuum,
/// probe, drain the queue with the worker's claim, and prune a day.
struct PartitionLab: Sendable {
    let pool: PostgresPool
    let plan: PartitionLoadPlan
    let claimLimit: Int
    let repeats: Int
    let loaders: Int

    /// Partition names carry their day: `jobs_p20261126`.
    static let partitionPrefix = "jobs_p"

    struct Base: Sendable {
        /// Midnight (UTC) of each day of the plan and of the two after it, as the server spells
        /// a timestamptz.
        let dayStarts: [String]
        let shape: JobsShape
        /// Partitions by day, oldest first (two more than the data's days: today and tomorrow,
        /// made ahead as a deployment would).
        let partitions: [String]
    }

    func prepare() async throws -> Base {
        let days = plan.days
        return try await pool.withConnection { connection in
            let rows = try connection.query("""
                SELECT (s + d * interval '1 day')::text AS start, 'jobs_p' || to_char((s + d * interval '1 day') AT TIME ZONE 'UTC', 'YYYYMMDD') AS name
                FROM (SELECT date_trunc('day', now(), 'UTC') - $1 * interval '1 day' AS s) AS first, generate_series(0, $1::int + 2) AS d
                ORDER BY d
                """, [days])
            let dayStarts = try rows.map { try $0.decode("start", as: String.self) }
            let partitions = try rows.dropLast().map { try $0.decode("name", as: String.self) }
            let shape = try JobsShape.read(on: connection)
            // Storage parameters (fillfactor, autovacuum) belong to each partition: a partitioned
            // table holds no rows and refuses them.
            try connection.execute(script: """
                CREATE TABLE receiptq.jobs_partitioned (LIKE receiptq.jobs INCLUDING DEFAULTS INCLUDING GENERATED
                    INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING IDENTITY INCLUDING COMMENTS) PARTITION BY RANGE (created_at)
                """)
            return Base(dayStarts: dayStarts, shape: shape, partitions: partitions)
        }
    }

    // MARK: - Loading

    /// Loads the plan's rows into `receiptq.jobs` (whichever layout it is now), `loaders` chunks at once.
    func load(base: Base) async throws -> Double {
        let plan = self.plan
        let started = ContinuousClock.now
        try await forEachConcurrently(plan.chunks(size: 500_000), width: loaders) { chunk in
            try await pool.withConnection { connection in
                try connection.execute(script: "SET synchronous_commit = off")
                try connection.query(PartitionLoadPlan.insertSQL, [
                    chunk.first, chunk.last, base.dayStarts[chunk.day], plan.first(day: chunk.day), plan.count(day: chunk.day),
                    plan.rows, plan.queued, plan.verifying, plan.users,
                ])
            }
        }
        return (ContinuousClock.now - started).seconds
    }

    /// Builds the primary key (alone: it locks the table), then the other indexes `loaders` at a
    /// time; for the partitioned layout each becomes one index per partition.
    func buildIndexes(primaryKey: String, indexes: [String]) async throws -> Double {
        let started = ContinuousClock.now
        try await pool.withConnection { try $0.execute(script: "SET maintenance_work_mem = '512MB'; \(primaryKey)") }
        try await forEachConcurrently(indexes, width: loaders) { definition in
            try await pool.withConnection { try $0.execute(script: "SET maintenance_work_mem = '512MB'; \(definition)") }
        }
        return (ContinuousClock.now - started).seconds
    }

    func vacuumAnalyze() async throws -> Double {
        let started = ContinuousClock.now
        try await pool.withConnection { try $0.execute(script: "VACUUM (ANALYZE) receiptq.jobs") }
        return (ContinuousClock.now - started).seconds
    }

    func sizes() async throws -> (total: Int64, indexes: Int64, rows: Int, partitions: Int) {
        try await pool.withConnection { connection in
            let row = try connection.query("""
                SELECT sum(pg_total_relation_size(relid))::bigint AS total, sum(pg_indexes_size(relid))::bigint AS indexes,
                       count(*) FILTER (WHERE parentrelid IS NOT NULL)::int AS partitions,
                       (SELECT count(*) FROM receiptq.jobs)::int AS rows
                FROM (SELECT relid, parentrelid FROM pg_partition_tree('receiptq.jobs')
                      UNION ALL   -- a plain table is no tree
                      SELECT 'receiptq.jobs'::regclass, NULL WHERE NOT EXISTS (SELECT FROM pg_partition_tree('receiptq.jobs'))) AS tree
                """)[0]
            return (try row.decode("total"), try row.decode("indexes"), try row.decode("rows"), try row.decode("partitions"))
        }
    }

    /// The worker's claim (`ClaimBatch`), each kind until none is left: how many queued rows it
    /// found, and how fast.
    func drainQueue() async throws -> (claimed: Int, seconds: Double) {
        let started = ContinuousClock.now
        let claimed = try await pool.withConnection { connection in
            var claimed = 0
            for kind in JobKind.allCases {
                while true {
                    let leases = try ClaimBatch.run(limit: 1000, kind: kind, worker: "lab-drain", lease: .seconds(300), on: connection)
                    if leases.isEmpty { break }
                    claimed += leases.count
                }
            }
            return claimed
        }
        return (claimed, (ContinuousClock.now - started).seconds)
    }
}
