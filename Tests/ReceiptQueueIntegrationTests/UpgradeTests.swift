import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// The upgrade an operator makes: a database of the release before (`Fixtures/before-0.11.0.sql`,
/// its schema and data as that release left them) migrated by this binary. Afterwards it holds
/// exactly the schema a fresh install has, and what it held still holds: every grant owned, the
/// subscription the old rule spread over three accounts back with its first account (the others
/// told), pending jobs and notifications still pending, every entitlement where it belongs.
@Suite("Upgrade: the release before's database migrates to this one")
struct UpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/before-0.11.0.sql")

    @Test func theReleaseBeforesDatabaseMigratesToExactlyTheSchemaAndKeepsItsInvariants() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let dump = try String(contentsOf: Self.fixture, encoding: .utf8)
        try await pool.withConnection { try $0.execute(script: dump) }
        func count(_ sql: String) async throws -> Int { try await pool.query(sql)[0].decode("count", as: Int.self) }
        let jobsBefore = try await pool.query("SELECT state, count(*) AS count FROM receiptq.jobs GROUP BY 1 ORDER BY 1")
            .map { "\(try $0.decode("state", as: String.self)) \(try $0.decode("count", as: Int.self))" }

        let report = try await pool.withConnection { try Migrator.migrate(try EmbeddedSQL.migrations(), on: $0) }
        #expect(report.applied.first == "0035_purchase_owners.sql" && report.alreadyApplied > 30, "\(report)")
        let differences = try await pool.withConnection { try SchemaCatalog.verify(against: EmbeddedSQL.schema, on: $0) }
        #expect(differences.isEmpty, "missing: \(differences.missing.prefix(5)); extra: \(differences.extra.prefix(5))")

        // The ledger: every grant owned, each original transaction by one account.
        #expect(try await count("SELECT count(*) FROM receiptq.grants g LEFT JOIN receiptq.owners o USING (original_transaction_id) "
                                + "WHERE o.user_id IS DISTINCT FROM g.user_id") == 0)
        #expect(try await count("SELECT count(*) FROM receiptq.grants WHERE original_transaction_id = 's-1' AND user_id = 'alice'") == 3)
        #expect(try await count("SELECT count(*) FROM receiptq.subscriptions WHERE original_transaction_id = 's-1' AND user_id = 'alice'") == 1)
        #expect(try await count("SELECT count(*) FROM receiptq.events WHERE type = 'grant.transferred' AND user_id IN ('mallory', 'eve') "
                                + "AND body->>'direction' = 'out'") == 2)
        #expect(try await count("SELECT count(*) FROM receiptq.deliveries d JOIN receiptq.events e ON e.sequence = d.event_sequence "
                                + "WHERE e.type = 'grant.transferred'") == 4, "each account's backend hears it by webhook")
        #expect(try await count("SELECT count(*) FROM receiptq.owners WHERE original_transaction_id = 'f-1' AND ownership_type = 'FAMILY_SHARED'") == 1)
        #expect(try await count("SELECT count(*) FROM receiptq.owners WHERE original_transaction_id = 'manual:ticket-1' AND source = 'manual'") == 1)
        #expect(try await count("SELECT count(*) FROM receiptq.grants WHERE revoked_at IS NOT NULL") == 1, "the refund stays, nothing else revoked")
        // What was pending still is; what ended stays ended.
        let jobsAfter = try await pool.query("SELECT state, count(*) AS count FROM receiptq.jobs GROUP BY 1 ORDER BY 1")
            .map { "\(try $0.decode("state", as: String.self)) \(try $0.decode("count", as: Int.self))" }
        #expect(jobsAfter == jobsBefore)
        #expect(try await count("SELECT count(*) FROM receiptq.notifications WHERE state = 'queued'") == 1)
        // Entitlements, as the API reads them.
        var entitled: [String: [String]] = [:]
        for user in ["alice", "mallory", "eve", "bob", "carol", "dave"] {
            entitled[user] = try await pool.withConnection { try ListEntitlements.run(userID: user, on: $0) }.map(\.productID).sorted()
        }
        #expect(entitled == ["alice": ["com.example.monthly", "com.example.pro"], "mallory": [], "eve": [], "bob": ["com.example.monthly"],
                             "carol": ["com.example.pro"], "dave": ["com.example.pro"]])
        // And the new rule holds from the first write on: the old thief's next period is refused.
        await #expect(throws: PostgresError.self) {
            try await pool.query("""
                INSERT INTO receiptq.grants (transaction_id, original_transaction_id, job_id, user_id, product_id, environment, purchase_key)
                VALUES ('s-4', 's-1', 1, 'mallory', 'com.example.monthly', 'Production', 'period:w-4')
                """)
        }
        await database.drop()
    }
}
