import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// `SQL/schema.sql` is the current schema as one file — what a freshly migrated database holds
/// (tables, indexes, functions, views, triggers, grants) — so nobody has to replay the migrations
/// in their head to know what `record_purchase` or `jobs` is today. The migrations stay the
/// history that gets there. This test fails when the file and a fresh migration disagree;
/// `./Deploy/dev schema` writes the file (it runs this test with `RECEIPTQ_WRITE_SCHEMA=1`).
@Suite("Schema: SQL/schema.sql is what the migrations make")
struct SchemaTests {
    static var schemaFile: URL { ScratchDatabase.migrationsDirectory().deletingLastPathComponent().appendingPathComponent("schema.sql") }

    static let header = """
        -- ReceiptQueue's schema as it is now: what `receiptq migrate` makes of SQL/migrations in a new
        -- database, dumped by pg_dump (--schema-only --schema=receiptq --no-owner). The current truth;
        -- the migrations are its history. Generated: do not edit. `./Deploy/dev schema` rewrites it,
        -- and SchemaTests fails when it differs from a fresh migration.

        """

    /// pg_dump's output without what changes from run to run or from machine to machine: the
    /// versions it names and the random token of `\restrict`.
    static func normalized(_ dump: String) -> String {
        let kept = dump.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            !line.hasPrefix("\\restrict") && !line.hasPrefix("\\unrestrict") && !line.hasPrefix("-- Dumped from")
                && !line.hasPrefix("-- Dumped by")
        }
        return header + kept.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
    }

    static func dump(_ database: ScratchDatabase) async throws -> String {
        let bin = ProcessInfo.processInfo.environment["RECEIPTQ_PG_BIN"].map { $0 + "/pg_dump" } ?? "/usr/bin/pg_dump"
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-schema-\(UUID().uuidString).sql")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = try SpawnedProcess(executable: bin, arguments: [
            "--schema-only", "--schema=receiptq", "--no-owner", "--file", out.path, database.connectionString,
        ], stdout: .null, stderr: .null)
        _ = await eventually(timeout: .seconds(60), every: .milliseconds(50)) { !process.isRunning }
        guard process.terminationStatus == 0 else { throw TestSetupError("pg_dump (\(bin)) failed: status \(String(describing: process.terminationStatus))") }
        return try String(contentsOf: out, encoding: .utf8)
    }

    @Test func theFileIsWhatAFreshMigrationMakes() async throws {
        let database = try await ScratchDatabase.migrated()
        let current = Self.normalized(try await Self.dump(database))
        await database.drop()
        if ProcessInfo.processInfo.environment["RECEIPTQ_WRITE_SCHEMA"] == "1" {
            try current.write(to: Self.schemaFile, atomically: true, encoding: .utf8)
            return
        }
        let file = (try? String(contentsOf: Self.schemaFile, encoding: .utf8)) ?? ""
        guard file != current else { return }
        let (ours, theirs) = (file.split(separator: "\n", omittingEmptySubsequences: false),
                              current.split(separator: "\n", omittingEmptySubsequences: false))
        let line = Array(zip(ours, theirs)).firstIndex { $0.0 != $0.1 } ?? min(ours.count, theirs.count)
        Issue.record("""
            SQL/schema.sql differs from a fresh migration at line \(line + 1): the file says \
            "\(line < ours.count ? ours[line].prefix(160) : "(end)")", the database "\(line < theirs.count ? theirs[line].prefix(160) : "(end)")". \
            Run ./Deploy/dev schema and commit the file with the migration that changed it.
            """)
    }
}
