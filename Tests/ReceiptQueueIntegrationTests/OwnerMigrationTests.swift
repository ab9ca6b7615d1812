import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// Migration 0035 on a database that already holds the hole it closes: periods of one subscription
/// granted to several accounts. The first grant's user keeps the subscription; every other account's
/// grant moves to that owner, each account hears it (`grant.transferred`), ops read why in the
/// audit log, and from then on the database refuses a grant to anyone but the owner.
@Suite("Migration 0035: one owner per original transaction, for data written before it")
struct OwnerMigrationTests {
    @Test func crossAccountGrantsMoveToTheFirstGrantsUserWithEventsAndAnAuditRow() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let all = try Migration.load(from: ScratchDatabase.migrationsDirectory())
        let before = all.filter { $0.kind == .versioned && $0.version < 35 }
        _ = try await pool.withConnection { try Migrator.migrate(before, on: $0) }
        // As the hole left it: alice bought; mallory and eve replayed older and newer periods.
        for (key, transaction, user, ago) in [("period:1", "p1", "alice", 300), ("period:2", "p2", "mallory", 200), ("period:3", "p3", "eve", 100)] {
            try await pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key,
                                             product_type, expires_date, granted_at)
                VALUES ($1, 'sub1', 1, $2, 'monthly', 'Production', $3, 'auto_renewable', now() + interval '1 day', now() - $4 * interval '1 second')
                """, [transaction, user, key, ago])
        }
        try await pool.query("""
            INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key, product_type)
            VALUES ('n1', 'n1', 2, 'alice', 'pro', 'Production', 'purchase:n1', 'non_consumable'),
                   ('manual:t-1', 'manual:t-1', -1, 'bob', 'gems', 'Production', 'manual:t-1', 'consumable')
            """)
        try await pool.query("UPDATE receiptq.grants SET manual_by = 'ops' WHERE purchase_key = 'manual:t-1'")
        try await pool.query("""
            INSERT INTO receiptq.subscriptions (original_transaction_id, environment, user_id, signed_at) VALUES ('sub1', 'Production', 'eve', now())
            """)

        let report = try await pool.withConnection { try Migrator.migrate(all, on: $0) }
        #expect(report.applied.contains("0035_purchase_owners.sql"))

        let owners = try await pool.query("SELECT original_transaction_id, user_id, source FROM receiptq.owners ORDER BY 1")
            .map { "\(try $0.decode("original_transaction_id", as: String.self))=\(try $0.decode("user_id", as: String.self)):\(try $0.decode("source", as: String.self))" }
        #expect(owners == ["manual:t-1=bob:manual", "n1=alice:migration", "sub1=alice:migration"])
        #expect(try await count(pool, "SELECT count(*) FROM receiptq.grants WHERE original_transaction_id = 'sub1' AND user_id = 'alice'") == 3)
        #expect(try await count(pool, "SELECT count(*) FROM receiptq.grants WHERE revoked_at IS NOT NULL") == 0,
                "the periods the owner paid for stay the owner's entitlement")
        #expect(try await count(pool, "SELECT count(*) FROM receiptq.subscriptions WHERE user_id = 'alice'") == 1)
        let events = try await pool.query("""
            SELECT user_id, body->>'direction' AS direction, body->>'purchase_keys' AS keys FROM receiptq.events
            WHERE type = 'grant.transferred' ORDER BY sequence
            """).map { "\(try $0.decode("user_id", as: String.self)):\(try $0.decode("direction", as: String.self)):\(try $0.decode("keys", as: String.self))" }
        #expect(events == ["eve:out:[\"period:3\"]", "alice:in:[\"period:3\"]", "mallory:out:[\"period:2\"]", "alice:in:[\"period:2\"]"])
        #expect(try await count(pool, """
            SELECT count(*) FROM receiptq.support_audit
            WHERE actor = 'migration 0035' AND action = 'purchase.owner_corrected' AND subject = 'original_transaction:sub1'
            """) == 1)
        // From now on, the database refuses a grant to anyone but the owner.
        await #expect(throws: PostgresError.self) {
            try await pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key)
                VALUES ('p4', 'sub1', 3, 'mallory', 'monthly', 'Production', 'period:4')
                """)
        }
        let entitled = try await pool.withConnection { try ListEntitlements.run(userID: "alice", on: $0) }.map(\.productID).sorted()
        #expect(entitled == ["monthly", "pro"])
        #expect(try await pool.withConnection { try ListEntitlements.run(userID: "mallory", on: $0) }.isEmpty)
        await database.drop()
    }

    private func count(_ pool: PostgresPool, _ sql: String) async throws -> Int {
        try await pool.query(sql)[0].decode("count", as: Int.self)
    }
}
