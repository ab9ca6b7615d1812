import CommandSupport
import FakeAppStore
import Postgres

/// The invariants a chaos run must hold at the end, each with the figure that proves it.
struct ChaosInvariant: Sendable, Codable {
    var name: String
    var held: Bool
    var figure: String
}

/// Checks the database against what the clients were told (the ledger) and what Apple answered
/// (the fake's own count of valid answers per transaction).
struct ChaosVerdict {
    let pool: PostgresPool
    let ledger: ChaosLedger.State
    let fake: FakeAppStoreStats.Snapshot

    func lostAndPhantom() async throws -> [ChaosInvariant] {
        let ids = Array(ledger.accepted.keys)
        // Primary key lookups for the accepted ids; a count of the whole (scratch) table.
        let found: Int = try await pool.query("SELECT count(*) AS n FROM receiptq.jobs WHERE id = ANY($1)", [ids])[0].decode("n")
        // Receipts only: the notifications phase adds StoreKit 2 jobs of its own, checked apart.
        let rows: Int = try await pool.query("SELECT count(*) AS n FROM receiptq.jobs WHERE kind = 'receipt'")[0].decode("n")
        return [
            ChaosInvariant(name: "0 lost: every 202/200 has its job row", held: found == ids.count,
                           figure: "\(ids.count) accepted, \(found) found"),
            ChaosInvariant(name: "no job the clients were not told about", held: rows == ids.count,
                           figure: "\(rows) job rows for \(ids.count) accepted ids"),
            ChaosInvariant(name: "every purchase accepted in the end (clients retry 503/429/no answer)",
                           held: ledger.abandoned.isEmpty && ledger.refused.isEmpty,
                           figure: "\(ledger.submitted) submitted, \(ledger.abandoned.count) abandoned, \(ledger.refused.count) refused"),
        ]
    }

    /// Counts of jobs not yet terminal (and of those still leased).
    func unfinished() async throws -> (open: Int, verifying: Int) {
        // Served by the partial indexes of the live states (ready, lease, timed out).
        let row = try await pool.query("""
            SELECT count(*) FILTER (WHERE state IN ('queued', 'verifying', 'timed_out')) AS open,
                   count(*) FILTER (WHERE state = 'verifying') AS verifying
            FROM receiptq.jobs
            """)[0]
        return (try row.decode("open"), try row.decode("verifying"))
    }

    func grants() async throws -> [ChaosInvariant] {
        var granted: [String: Int] = [:], already: [String: Int] = [:], stateOf: [Int64: String] = [:]
        for row in try await pool.query("SELECT id, transaction_id, state FROM receiptq.jobs WHERE kind = 'receipt'") {
            let id: Int64 = try row.decode("id"), transaction: String = try row.decode("transaction_id"), state: String = try row.decode("state")
            stateOf[id] = state
            if state == "granted" { granted[transaction, default: 0] += 1 }
            if state == "already_granted" { already[transaction, default: 0] += 1 }
        }
        var grantRows: [String: Int64] = [:]
        for row in try await pool.query("""
            SELECT g.transaction_id, g.job_id FROM receiptq.grants g JOIN receiptq.jobs j ON j.id = g.job_id WHERE j.kind = 'receipt'
            """) {
            grantRows[try row.decode("transaction_id")] = try row.decode("job_id")
        }
        let doubly = granted.filter { $0.value > 1 }.count
        let withoutApple = grantRows.keys.filter { (fake.validAnswersByTransactionID[$0] ?? 0) == 0 }.count
        let grantOfOtherJob = grantRows.filter { stateOf[$0.value] != "granted" }.count

        // What each purchase had to end as.
        var wrong: [String] = []
        var transactions: [String: [ChaosPurchase.Kind]] = [:]
        for purchase in ledger.accepted.values { transactions[purchase.transactionID, default: []].append(purchase.kind) }
        // Apple confirmed the transaction more often than it has jobs: a job was verified again
        // after a kill, a restart or a lost lease — the fence and the ledger had work to do.
        let reverified = transactions.filter { (fake.validAnswersByTransactionID[$0.key] ?? 0) > $0.value.count }.count
        // Jobs claimed again: after a SIGKILL, a hang, a retryable answer or an outage.
        let reclaimed: Int = try await pool.query("SELECT count(*) AS n FROM receiptq.jobs WHERE attempts > 1")[0].decode("n")
        for (job, purchase) in ledger.accepted where purchase.kind == .forged && stateOf[job] != "rejected" {
            wrong.append("forged \(purchase.transactionID) ended \(stateOf[job] ?? "missing")")
        }
        for (transaction, kinds) in transactions where !kinds.contains(.forged) {
            let expectedAlready = kinds.count - 1
            if granted[transaction] != 1 || (already[transaction] ?? 0) != expectedAlready || grantRows[transaction] == nil {
                wrong.append("\(transaction): \(granted[transaction] ?? 0) granted, \(already[transaction] ?? 0) already granted of \(kinds.count) jobs")
            }
        }
        return [
            ChaosInvariant(name: "0 double grants: one granted job and one grant row per transaction",
                           held: doubly == 0 && grantOfOtherJob == 0,
                           figure: "\(grantRows.count) grants; \(doubly) transactions granted twice; \(reclaimed) jobs claimed more than once; \(reverified) transactions Apple confirmed more often than they had jobs"),
            ChaosInvariant(name: "no grant without a valid answer from Apple", held: withoutApple == 0,
                           figure: "\(withoutApple) grants Apple never confirmed"),
            ChaosInvariant(name: "every purchase ended as it should (granted / already granted / forged rejected)",
                           held: wrong.isEmpty, figure: wrong.isEmpty ? "\(transactions.count) transactions checked" : wrong.prefix(3).joined(separator: "; ") + (wrong.count > 3 ? " (+\(wrong.count - 3))" : "")),
        ]
    }
}
