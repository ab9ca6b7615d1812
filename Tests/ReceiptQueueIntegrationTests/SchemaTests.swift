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

    /// One home for each function and view: its file in SQL/functions or SQL/views, re-applied by
    /// `receiptq migrate` when it changes. A function or view made only by a numbered migration,
    /// or a file naming nothing the schema has, fails here.
    @Test func everyFunctionAndViewHasItsOneFile() async throws {
        let database = try await ScratchDatabase.migrated()
        let pool = database.pool(size: 1)
        let functions = try await pool.query("""
            SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'receiptq'
            """).map { try $0.decode("name", as: String.self) }
        let views = try await pool.query("SELECT viewname AS name FROM pg_views WHERE schemaname = 'receiptq'")
            .map { try $0.decode("name", as: String.self) }
        pool.shutdown()
        await database.drop()
        let sql = ScratchDatabase.migrationsDirectory().deletingLastPathComponent()
        func files(_ folder: String) -> Set<String> {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: sql.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".sql") }.map { String($0.dropLast(4)) })
        }
        #expect(Set(functions) == files("functions"), "functions without a file, or files without a function")
        #expect(Set(views) == files("views"), "views without a file, or files without a view")
        #expect(functions.count >= 10 && views.count >= 9)
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
