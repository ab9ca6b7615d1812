import Foundation
import Postgres
import PostgresTesting
import ReceiptQueueTesting
import Testing

/// `receiptq sync` (history sync backfill) and `receiptq reconcile` (a status check on demand) from
/// the command line: what they queue, that a re-run leaves what is queued or done alone, and a
/// message naming the flag for what they cannot use.
@Suite("receiptq sync and reconcile: backfill and on-demand checks")
struct SyncCommandTests {
    @Test func backfillQueuesEverySubscriptionOnceAndReconcileMakesOneDue() async throws {
        let database = try await ScratchDatabase.migrated()
        let url = database.connectionString
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        // Two subscriptions' grants and a consumable's, written before triggers could see them (as at adoption).
        try await pool.query("ALTER TABLE receiptq.grants DISABLE TRIGGER grants_first_sighting")
        for (id, type) in [("s1", "auto_renewable"), ("s2", "auto_renewable"), ("c1", "consumable")] {
            try await pool.query("INSERT INTO receiptq.owners (original_transaction_id, user_id, environment, source) VALUES ($1, $2, 'Production', 'proof') ON CONFLICT DO NOTHING", [id, "alice"])
            try await pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id, environment,
                                             product_type)
                VALUES ($1, $1, 'purchase:' || $1, 1, 'alice', 'p', 'Production', $2)
                """, [id, type])
        }
        try await pool.query("ALTER TABLE receiptq.grants ENABLE TRIGGER grants_first_sighting")

        let all = try await ChildProcess.run(arguments: ["sync", "--database-url", url, "--all"])
        #expect(all.status == 0 && all.stdout.contains("queued 2 history syncs"), "\(all.stdout) \(all.stderr)")
        let again = try await ChildProcess.run(arguments: ["sync", "--database-url", url, "--all"])
        #expect(again.stdout.contains("queued 0 history syncs"), "\(again.stdout)")
        let one = try await ChildProcess.run(arguments: ["sync", "--database-url", url, "--original-transaction-id", "s1",
                                                         "--user-id", "alice"])
        #expect(one.status == 0 && one.stdout.contains("history sync s1 (Production): queued"), "\(one.stdout) \(one.stderr)")
        let status = try await ChildProcess.run(arguments: ["sync", "--database-url", url, "--status"])
        #expect(status.stdout.contains("queued") && status.stdout.contains(" 2 "), "\(status.stdout)")

        try await pool.query("""
            INSERT INTO receiptq.subscriptions (original_transaction_id, environment, user_id, product_id, signed_at, reconcile_at)
            VALUES ('s1', 'Production', 'alice', 'p', now(), now() + interval '7 days')
            """)
        let reconcile = try await ChildProcess.run(arguments: ["reconcile", "--database-url", url, "--user-id", "alice"])
        #expect(reconcile.status == 0 && reconcile.stdout.contains("1 subscription due"), "\(reconcile.stdout) \(reconcile.stderr)")
        #expect(try await pool.query("SELECT 1 FROM receiptq.subscriptions WHERE reconcile_at <= now()").count == 1)
        let nobody = try await ChildProcess.run(arguments: ["reconcile", "--database-url", url, "--user-id", "nobody"])
        #expect(nobody.status == 1 && nobody.stdout.contains("no such subscription"))
    }

    @Test(arguments: [
        (["sync"], "--all"), (["sync", "--all", "--status"], "--all"), (["sync", "--all", "--environment", "prod"], "--environment"),
        (["sync", "--original-transaction-id", ""], "--original-transaction-id"), (["sync", "--all", "--user-id", "u"], "--user-id"),
        (["reconcile"], "--original-transaction-id"),
    ])
    func badFlagsAreRefusedNamingTheFlag(_ arguments: [String], _ flag: String) async throws {
        let refused = try await ChildProcess.run(arguments: arguments + ["--database-url", "postgresql://u:p@127.0.0.1:1/db"])
        #expect(refused.status == 64 && refused.stderr.contains(flag), "\(arguments): \(refused.status.map(String.init) ?? "-") \(refused.stderr)")
    }
}
