import Foundation
import Postgres
import ReceiptQueue

extension PartitionLab {
    /// The table as the migrations made it: indexes and primary key dropped for the load and
    /// built after it, triggers off while loading (the rows are history, not submissions), the
    /// foreign key to the ledger dropped (no ledger rows are loaded).
    func runFlat(base: Base) async throws -> BenchPartitionsOutcome.Layout {
        let shape = base.shape
        try await pool.withConnection { connection in
            try connection.execute(script: (shape.indexes.map { "DROP INDEX receiptq.\($0.name);" }
                + shape.foreignKeys.map { "ALTER TABLE receiptq.jobs DROP CONSTRAINT \($0);" } + [
                "ALTER TABLE receiptq.jobs DROP CONSTRAINT \(shape.primaryKey);",
                "ALTER TABLE receiptq.jobs DISABLE TRIGGER USER;",
            ]).joined(separator: "\n"))
        }
        benchProgress("flat: loading \(plan.rows) rows")
        let load = try await self.load(base: base)
        benchProgress("flat: indexes")
        let index = try await buildIndexes(primaryKey: "ALTER TABLE receiptq.jobs ADD CONSTRAINT \(shape.primaryKey) PRIMARY KEY (id)",
                                           indexes: shape.indexes.map(\.definition))
        try await pool.withConnection { try $0.execute(script: "ALTER TABLE receiptq.jobs ENABLE TRIGGER USER") }
        return try await measure(layout: "flat", base: base, load: load, index: index) {
            benchProgress("flat: pruning the first day with the scheduler's DELETE")
            let deleted = try await pruneByDelete(base: base, day: 0)
            return BenchPartitionsOutcome.Prune(deleteDay: 0, deletedRows: deleted.rows, deleteSeconds: deleted.seconds)
        }
    }

    /// Drops the flat table (and, with it, the views that read it), puts the partitioned parent
    /// in its place under its name, makes a partition per day, and re-applies the repeatable
    /// functions and views from `SQL/` so they read the new table. Returns the constraints that
    /// had to change.
    func swapInPartitioned(base: Base, repeatables: [Migration]) async throws -> [BenchPartitionsOutcome.ChangedConstraint] {
        try await pool.withConnection { connection in
            try connection.execute(script: """
                DROP TABLE receiptq.jobs CASCADE;
                ALTER TABLE receiptq.jobs_partitioned RENAME TO jobs;
                """)
            for (day, name) in base.partitions.enumerated() {
                // Names and bounds come from the server's own output and fixed words.
                try connection.execute(script: """
                    CREATE TABLE receiptq.\(name) PARTITION OF receiptq.jobs
                        FOR VALUES FROM ('\(base.dayStarts[day])') TO ('\(base.dayStarts[day + 1])')
                        WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02,
                              autovacuum_vacuum_cost_delay = 0)
                    """)
            }
            try Self.reapply(repeatables, on: connection)
            // Some function files make their triggers: off until the rows are in, as for the flat load.
            let triggers = try connection.query("""
                SELECT tgname FROM pg_trigger WHERE tgrelid = 'receiptq.jobs'::regclass AND NOT tgisinternal AND tgparentid = 0
                """).map { try $0.decode("tgname", as: String.self) }
            try connection.execute(script: triggers.map { "DROP TRIGGER \($0) ON receiptq.jobs;" }.joined(separator: "\n"))
        }
        let pkey = ChangedConstraint(name: base.shape.primaryKey, before: "PRIMARY KEY (id)", after: "PRIMARY KEY (id, created_at)")
        return [pkey] + base.shape.indexes.filter(\.unique).map {
            ChangedConstraint(name: $0.name, before: $0.definition, after: JobsShape.partitioned($0.definition))
        }
    }

    typealias ChangedConstraint = BenchPartitionsOutcome.ChangedConstraint

    /// The same rows into the partitioned `receiptq.jobs` (routed by `created_at`), then the
    /// primary key and unique indexes with `created_at` added, the other indexes as they are, and
    /// the triggers re-created from their definitions.
    func runPartitioned(base: Base) async throws -> BenchPartitionsOutcome.Layout {
        let shape = base.shape
        benchProgress("partitioned: loading \(plan.rows) rows into \(base.partitions.count) partitions")
        let load = try await self.load(base: base)
        benchProgress("partitioned: indexes")
        let index = try await buildIndexes(
            primaryKey: "ALTER TABLE receiptq.jobs ADD CONSTRAINT \(shape.primaryKey) PRIMARY KEY (id, created_at)",
            indexes: shape.indexes.map { $0.unique ? JobsShape.partitioned($0.definition) : $0.definition })
        try await pool.withConnection { try $0.execute(script: shape.triggers.map { $0 + ";" }.joined(separator: "\n")) }
        return try await measure(layout: "partitioned", base: base, load: load, index: index) {
            benchProgress("partitioned: pruning the first day by DETACH + DROP, the second by the scheduler's DELETE")
            let dropped = try await pruneByDetach(base: base, day: 0)
            let deleted = try await pruneByDelete(base: base, day: 1)
            return BenchPartitionsOutcome.Prune(deleteDay: 1, deletedRows: deleted.rows, deleteSeconds: deleted.seconds, detach: dropped)
        }
    }

    /// What both layouts measure once loaded and indexed; `prune` last (it removes rows).
    private func measure(layout: String, base: Base, load: Double, index: Double,
                         prune: () async throws -> BenchPartitionsOutcome.Prune) async throws -> BenchPartitionsOutcome.Layout {
        benchProgress("\(layout): VACUUM (ANALYZE)")
        let vacuum = try await vacuumAnalyze()
        let size = try await sizes()
        guard size.rows == plan.rows else { throw BenchError("\(layout): \(size.rows) rows loaded, \(plan.rows) planned") }
        benchProgress("\(layout): probes")
        let probes = try await PlanProbe.all(pool: pool, plan: plan, claimLimit: claimLimit, repeats: repeats)
        let drain = try await drainQueue()
        let pruned = try await prune()
        return BenchPartitionsOutcome.Layout(
            name: layout, rows: size.rows, partitions: size.partitions, loadSeconds: load, indexSeconds: index, vacuumSeconds: vacuum,
            totalBytes: size.total, indexBytes: size.indexes, probes: probes,
            claimed: drain.claimed, claimSeconds: drain.seconds, prune: pruned)
    }

    /// Re-applies the repeatable files in order, again for those that failed while a file they
    /// read was still missing (the migrator applies them into an already complete schema).
    static func reapply(_ repeatables: [Migration], on connection: PostgresConnection) throws {
        var pending = repeatables
        while !pending.isEmpty {
            var failed: [Migration] = []
            var lastError: Error?
            for file in pending {
                do {
                    try connection.transaction { try $0.execute(script: file.sql) }
                } catch {
                    failed.append(file)
                    lastError = error
                }
            }
            if failed.count == pending.count, let lastError { throw BenchError("re-applying \(failed.map(\.name)): \(lastError)") }
            pending = failed
        }
    }
}

/// A line on stderr while a long run goes on.
func benchProgress(_ message: String) {
    FileHandle.standardError.write(Data("bench partitions: \(message)\n".utf8))
}
