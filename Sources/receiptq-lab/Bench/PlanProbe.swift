import Foundation
import Postgres
import ReceiptQueue

/// One statement the product or its operators run against `receiptq.jobs`, timed with
/// `EXPLAIN (ANALYZE, BUFFERS)` inside a transaction that is rolled back (the claim's UPDATE
/// leaves nothing behind), and summarised: time, buffers, partitions the executor entered.
struct PlanProbe: Sendable {
    let name: String
    let sql: String
    let parameters: [String]
    /// Runs when the statement reads the whole table (once is enough to know).
    let runs: Int?

    struct Figures: Codable, Sendable {
        let name: String
        /// Median of the runs, planning included.
        let milliseconds: Double
        let planningMilliseconds: Double
        /// Shared buffers hit and read by the last run.
        let sharedHit: Int
        let sharedRead: Int
        /// Partitions whose scan nodes ran at least once, and those in the plan.
        let partitionsScanned: Int
        let partitionsPlanned: Int
        let rows: Int
    }

    /// The statements, with parameters chosen from the loaded rows: the user in the middle of
    /// the population, one of their jobs, and a transaction id from the middle of the load.
    static func all(pool: PostgresPool, plan: PartitionLoadPlan, claimLimit: Int, repeats: Int) async throws -> [Figures] {
        let user = "user-\(plan.users / 2)"
        let id = try await pool.query("SELECT max(id)::text AS id FROM receiptq.jobs WHERE user_id = $1", [user])[0]
            .decode("id", as: String.self)
        let transaction = String(2_000_000_000_000_000 + plan.rows / 2)
        let probes: [PlanProbe] = [
            PlanProbe(name: "claim (ClaimBatch, receipt)", sql: ClaimBatch.sql,
                      parameters: [String(claimLimit), "lab-probe", "300000", JobKind.receipt.rawValue], runs: nil),
            PlanProbe(name: "status by job id (JobRecord)", sql: JobRecord.sql, parameters: [id], runs: nil),
            PlanProbe(name: "status by user (CustomerView)", sql: CustomerView.userSQL, parameters: [user, "50", "50", "50"], runs: nil),
            PlanProbe(name: "queue_depth", sql: "SELECT * FROM receiptq.queue_depth", parameters: [], runs: nil),
            PlanProbe(name: "queue_health", sql: "SELECT * FROM receiptq.queue_health", parameters: [], runs: nil),
            PlanProbe(name: "claimable_work", sql: "SELECT * FROM receiptq.claimable_work", parameters: [], runs: nil),
            PlanProbe(name: "outcomes", sql: "SELECT * FROM receiptq.outcomes", parameters: [], runs: nil),
            PlanProbe(name: "failures (LIMIT 20)", sql: "SELECT * FROM receiptq.failures LIMIT 20", parameters: [], runs: nil),
            // SQL/ops/queue.sql
            PlanProbe(name: "ops: 20 oldest ready", sql: """
                SELECT id, transaction_id, user_id, attempts, now() - run_at AS waiting, last_error
                FROM receiptq.jobs WHERE state = 'queued' AND run_at <= now()
                ORDER BY run_at, id LIMIT 20
                """, parameters: [], runs: nil),
            PlanProbe(name: "ops: leases per worker", sql: """
                SELECT locked_by, count(*) AS leased, count(*) FILTER (WHERE locked_until < now()) AS expired,
                       min(locked_until) AS next_expiry
                FROM receiptq.jobs WHERE state = 'verifying' GROUP BY locked_by ORDER BY leased DESC
                """, parameters: [], runs: nil),
            // SQL/ops/job.sql: no index leads with transaction_id, so this reads the table.
            PlanProbe(name: "ops: jobs of a transaction", sql: """
                SELECT id, state, user_id, created_at, finished_at, outcome_reason
                FROM receiptq.jobs WHERE transaction_id = $1 ORDER BY created_at
                """, parameters: [transaction], runs: 1),
        ]
        var figures: [Figures] = []
        for probe in probes {
            figures.append(try await probe.measure(pool: pool, runs: probe.runs ?? repeats))
        }
        return figures
    }

    func measure(pool: PostgresPool, runs: Int) async throws -> Figures {
        var totals: [Double] = []
        var last: [String: Any] = [:]
        for _ in 0..<runs {
            let explain = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, parameters = self.parameters.map { $0 as (any PostgresEncodable)? }
            let text = try await pool.withConnection { connection in
                try connection.execute(script: "BEGIN")
                defer { if connection.isHealthy { _ = try? connection.execute(script: "ROLLBACK") } }   // the claim's UPDATE leaves nothing
                return try connection.query(explain, parameters)[0].decode("QUERY PLAN", as: String.self)
            }
            guard let array = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], let top = array.first
            else { throw BenchError("\(name): EXPLAIN said something other than one JSON plan") }
            last = top
            totals.append(Self.number(top["Planning Time"]) + Self.number(top["Execution Time"]))
        }
        let root = last["Plan"] as? [String: Any] ?? [:]
        var scanned = Set<String>(), planned = Set<String>()
        Self.walk(root) { node in
            guard let relation = node["Relation Name"] as? String, PartitionLab.isPartition(relation) else { return }
            planned.insert(relation)
            if Self.number(node["Actual Loops"]) > 0 { scanned.insert(relation) }
        }
        return Figures(name: name, milliseconds: totals.sorted()[totals.count / 2], planningMilliseconds: Self.number(last["Planning Time"]),
                       sharedHit: Int(Self.number(root["Shared Hit Blocks"])), sharedRead: Int(Self.number(root["Shared Read Blocks"])),
                       partitionsScanned: scanned.count, partitionsPlanned: planned.count, rows: Int(Self.number(root["Actual Rows"])))
    }

    static func number(_ value: Any?) -> Double {
        (value as? NSNumber)?.doubleValue ?? 0
    }

    static func walk(_ node: [String: Any], _ visit: ([String: Any]) -> Void) {
        visit(node)
        for child in node["Plans"] as? [[String: Any]] ?? [] { walk(child, visit) }
    }
}

extension PartitionLab {
    /// `jobs_p` and eight digits: a day's partition of the lab's table.
    static func isPartition(_ relation: String) -> Bool {
        relation.hasPrefix(partitionPrefix) && relation.dropFirst(partitionPrefix.count).count == 8
            && relation.dropFirst(partitionPrefix.count).allSatisfy(\.isNumber)
    }
}
