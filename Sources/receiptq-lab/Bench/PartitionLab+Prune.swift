import Foundation
import Postgres
import ReceiptQueue

extension PartitionLab {
    /// Prunes the finished rows of `day` with the scheduler's own statement
    /// (`PruneFinishedJobs`, every retention class, 10,000 rows a statement) and a cutoff 30 s
    /// before the day's end, recomputed before each statement so it never reaches the next day.
    func pruneByDelete(base: Base, day: Int) async throws -> (rows: Int, seconds: Double) {
        let end = base.dayStarts[day + 1]
        let started = ContinuousClock.now
        let rows = try await pool.withConnection { connection in
            var deleted = 0
            for outcomes in PruneFinishedJobs.Outcomes.allCases {
                while true {
                    let milliseconds = try connection.query(
                        "SELECT (extract(epoch FROM now() - ($1::timestamptz - interval '30 seconds')) * 1000)::bigint AS ms", [end]
                    )[0].decode("ms", as: Int64.self)
                    let count = try PruneFinishedJobs.run(outcomes, retention: .milliseconds(milliseconds), limit: 10_000, on: connection)
                    deleted += count
                    if count == 0 { break }
                }
            }
            return deleted
        }
        return (rows, (ContinuousClock.now - started).seconds)
    }

    /// Prunes `day` by its partition: first copies out the rows whose retention is longer than
    /// the settled ones' (rejected, owned_elsewhere, failed) into `receiptq.jobs_retained` — a
    /// partition is dropped whole, so what must stay has to move — then DETACH PARTITION and
    /// DROP TABLE.
    func pruneByDetach(base: Base, day: Int) async throws -> BenchPartitionsOutcome.Detach {
        let partition = base.partitions[day]
        return try await pool.withConnection { connection in
            let count = { try connection.query("SELECT count(*)::int AS n FROM receiptq.jobs")[0].decode("n", as: Int.self) }
            let before = try count()
            try connection.execute(script: "CREATE TABLE IF NOT EXISTS receiptq.jobs_retained (LIKE receiptq.jobs)")
            var clock = ContinuousClock.now
            let kept = try connection.query("""
                INSERT INTO receiptq.jobs_retained SELECT * FROM receiptq.\(partition) WHERE state = ANY ($1::text[])
                """, [PartitionLoadPlan.longRetentionStates]).affectedRows
            let keepSeconds = (ContinuousClock.now - clock).seconds
            clock = ContinuousClock.now
            try connection.execute(script: "ALTER TABLE receiptq.jobs DETACH PARTITION receiptq.\(partition)")
            let detachSeconds = (ContinuousClock.now - clock).seconds
            clock = ContinuousClock.now
            try connection.execute(script: "DROP TABLE receiptq.\(partition)")
            let dropSeconds = (ContinuousClock.now - clock).seconds
            return BenchPartitionsOutcome.Detach(day: day, partition: partition, removedRows: before - (try count()), retainedRows: kept,
                                                 retainSeconds: keepSeconds, detachSeconds: detachSeconds, dropSeconds: dropSeconds)
        }
    }
}
