import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// `receiptq-lab bench partitions`: `receiptq.jobs` as it is (one table) against the same table
/// range-partitioned by `created_at`, one partition a day, loaded with the same rows, in a
/// scratch database migrated with the real migrations. Both layouts answer the product's own
/// statements — the worker's claim (`ClaimBatch.sql`), the status lookups (`JobRecord.sql`,
/// `CustomerView.userSQL`), the operators' views re-created from `SQL/views` — and prune a day, by
/// the scheduler's DELETE (`PruneFinishedJobs`) and by DETACH PARTITION + DROP TABLE. The layouts
/// run one after the other (the flat table is dropped before the partitioned one is loaded), so
/// the disk holds one copy at a time. The production schema is not changed: this is a lab.
struct BenchPartitions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "partitions",
        abstract: "jobs as one table vs. partitioned by day: load, the claim, the ops views, status lookups, pruning a day.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var migrations: MigrationsOptions

    @Option(help: "Job rows loaded into each layout.") var rows = 1_000_000
    @Option(help: "Days the rows are spread over, one partition each (≥ 2: the oldest is pruned).") var days = 30
    @Option(help: "Share of the rows left queued in the newest day (the live queue); as many again / 10 verifying.") var queued = 0.001
    @Option(help: "Distinct users (default: rows / 25, about 25 jobs per user).") var users: Int?
    @Option(help: "Jobs per claim (the worker claims up to its free slots).") var claimLimit = 100
    @Option(name: .customLong("repeat"), help: "Runs of each timed statement; the median is reported.") var repeats = 3
    @Option(help: "Connections loading rows at once.") var loaders = 2
    @Flag(inversion: .prefixedNo, help: "Load and measure the unpartitioned table too.") var flat = true
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Keep the scratch database for inspection.") var keepDatabase = false

    func validate() throws {
        guard (1_000...1_000_000_000).contains(rows) else { throw ValidationError("--rows must be 1000…1000000000") }
        guard (2...400).contains(days) else { throw ValidationError("--days must be 2…400") }
        guard rows / days >= 100 else { throw ValidationError("--rows must give each of the --days at least 100 rows") }
        guard queued >= 0, queued < 0.5 else { throw ValidationError("--queued must be a share within [0, 0.5)") }
        if let users { guard users > 0 else { throw ValidationError("--users must be positive") } }
        guard (1...10_000).contains(claimLimit) else { throw ValidationError("--claim-limit must be 1…10000") }
        guard (1...20).contains(repeats) else { throw ValidationError("--repeat must be 1…20") }
        guard (1...16).contains(loaders) else { throw ValidationError("--loaders must be 1…16") }
    }

    var plan: PartitionLoadPlan {
        PartitionLoadPlan(rows: rows, days: days, queued: Int(Double(rows) * queued), users: users ?? max(rows / 25, 1))
    }

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.bench-partitions", defaultLevel: .error)
        let server = try database.configuration(applicationName: "receiptq-bench")
        let files = try migrations.load()
        let scratch = try await ScratchDatabase.migrated(server: server, purpose: "partitions", migrations: files)
        let pool = scratch.pool(size: loaders + 1)
        do {
            let outcome = try await measure(pool: pool, repeatables: files.filter { $0.kind == .repeatable })
            pool.shutdown()
            await scratch.drop(keep: keepDatabase)
            print(json ? outcome.json : outcome.text)
        } catch {
            pool.shutdown()
            await scratch.drop(keep: keepDatabase)
            throw error
        }
    }

    func measure(pool: PostgresPool, repeatables: [Migration]) async throws -> BenchPartitionsOutcome {
        let plan = self.plan
        let lab = PartitionLab(pool: pool, plan: plan, claimLimit: claimLimit, repeats: repeats, loaders: loaders)
        let base = try await lab.prepare()
        var layouts: [BenchPartitionsOutcome.Layout] = []
        if flat {
            layouts.append(try await lab.runFlat(base: base))
        }
        let changes = try await lab.swapInPartitioned(base: base, repeatables: repeatables)
        layouts.append(try await lab.runPartitioned(base: base))
        return BenchPartitionsOutcome(plan: plan, layouts: layouts, changedConstraints: changes)
    }
}
