import Postgres
import PostgresTesting
import ReceiptQueueTesting
import Testing

/// Schema rules the queue's write path depends on for its speed, which no behaviour test notices
/// when they break: the rows stay right, only every write gets dearer.
@Suite("Schema: what keeps the write path cheap")
struct WritePathSchemaTests {
    /// PostgreSQL 15 recomputes every stored generated column on each UPDATE of a table that has a
    /// BEFORE UPDATE row trigger — whatever the trigger's WHEN clause says and whichever columns
    /// the UPDATE sets — because such a trigger may change any column. On `jobs` that is
    /// `receipt_sha256`: a TOAST read of the receipt and a SHA-256 of it on every claim, retry and
    /// verdict write (4.9 % of PostgreSQL's CPU in `bench queue` while `jobs_guard_state` was a
    /// BEFORE trigger, with eight-byte receipts). Guards that only refuse are AFTER triggers.
    @Test func noTableWithAStoredGeneratedColumnHasABeforeUpdateRowTrigger() async throws {
        let database = try await ScratchDatabase.migrated()
        let pool = database.pool(size: 1)
        // tgtype bits (pg_trigger.h): 1 row, 2 before, 16 update.
        let offending = try await pool.query("""
            SELECT c.relname || '.' || t.tgname AS name
            FROM pg_trigger t
            JOIN pg_class c ON c.oid = t.tgrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'receiptq' AND NOT t.tgisinternal
              AND t.tgtype & 1 = 1 AND t.tgtype & 2 = 2 AND t.tgtype & 16 = 16
              AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attgenerated = 's' AND NOT a.attisdropped)
            ORDER BY 1
            """).map { try $0.decode("name", as: String.self) }
        let generatedTables = try await pool.query("""
            SELECT count(DISTINCT a.attrelid) AS n FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'receiptq' AND a.attgenerated = 's'
            """).first?.decode("n", as: Int64.self)
        pool.shutdown()
        await database.drop()
        #expect(generatedTables ?? 0 >= 1, "jobs.receipt_sha256 is a stored generated column: the query above must see it")
        #expect(offending.isEmpty, "BEFORE UPDATE row triggers on tables with stored generated columns: \(offending)")
    }
}
