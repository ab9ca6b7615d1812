import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

@Suite("Migrations: once each, in order, under a lock")
struct MigrationTests {
    @Test func migratingTwiceIsANoOp() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let migrations = try Migration.load(from: ScratchDatabase.migrationsDirectory())
        let first = try await pool.withConnection { try Migrator.migrate(migrations, on: $0) }
        let second = try await pool.withConnection { try Migrator.migrate(migrations, on: $0) }
        #expect(first.applied == migrations.map(\.name))
        #expect(second.applied.isEmpty)
        #expect(second.alreadyApplied == migrations.count)
        #expect(try await pool.withConnection { try Migrator.pending(migrations, on: $0) }.isEmpty)
    }

    @Test func concurrentMigrateProcessesDoNotCollide() async throws {
        let database = try await ScratchDatabase.create()
        let arguments = ["migrate", "--database-url", database.connectionString, "--migrations", ScratchDatabase.migrationsDirectory().path]
        let runs = try (0..<4).map { _ in try ChildProcess(arguments: arguments) }
        for run in runs {
            let status = await run.wait(timeout: .seconds(60))
            #expect(status == 0, "migrate failed: \(run.stderr)")
        }
        #expect(runs.filter { $0.stdout.contains("applied 0001") }.count == 1)
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let versions = try await pool.query("SELECT version FROM receiptq.schema_migrations ORDER BY version").map { try $0.decode("version", as: Int.self) }
        #expect(versions == (try Migration.load(from: ScratchDatabase.migrationsDirectory())).filter { $0.kind == .versioned }.map(\.version))
    }

    @Test func changedAppliedMigrationIsRefusedWithAClearError() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let original = [Migration(version: 1, name: "0001_a.sql", sql: "CREATE TABLE a (x int)")]
        _ = try await pool.withConnection { try Migrator.migrate(original, on: $0) }
        let edited = [Migration(version: 1, name: "0001_a.sql", sql: "CREATE TABLE a (x bigint)")]
        let error = await #expect(throws: MigrationError.self) { try await pool.withConnection { try Migrator.migrate(edited, on: $0) } }
        #expect(error?.description.contains("0001_a.sql was changed after it was applied") == true)
    }

    @Test func failingMigrationRollsBackAloneAndIsNotRecorded() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let migrations = [Migration(version: 1, name: "0001_ok.sql", sql: "CREATE TABLE ok (x int)"),
                          Migration(version: 2, name: "0002_bad.sql", sql: "CREATE TABLE half (x int); SELECT no_such_function()")]
        let error = await #expect(throws: MigrationError.self) { try await pool.withConnection { try Migrator.migrate(migrations, on: $0) } }
        #expect(error?.description.contains("0002_bad.sql failed") == true)
        #expect(try await pool.query("SELECT to_regclass('half') IS NULL AS gone")[0].decode("gone", as: Bool.self))
        #expect(try await pool.query("SELECT count(*) FROM receiptq.schema_migrations")[0].decode("count", as: Int.self) == 1)
    }

    @Test func aRepeatableFileIsAppliedAgainWhenItChangesAndOnlyThen() async throws {
        let database = try await ScratchDatabase.create()
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        let table = Migration(version: 1, name: "0001_t.sql", sql: "CREATE SCHEMA IF NOT EXISTS receiptq; CREATE TABLE receiptq.t (x int)")
        func answer() async throws -> Int { try await pool.query("SELECT receiptq.f() AS f")[0].decode("f", as: Int.self) }
        let first = [table, .repeatable("functions/f.sql", sql: "CREATE OR REPLACE FUNCTION receiptq.f() RETURNS int LANGUAGE sql AS 'SELECT 1'")]
        #expect(try await pool.withConnection { try Migrator.migrate(first, on: $0) }.applied == ["0001_t.sql", "functions/f.sql"])
        #expect(try await answer() == 1)
        #expect(try await pool.withConnection { try Migrator.migrate(first, on: $0) }.applied.isEmpty)

        let edited = [table, .repeatable("functions/f.sql", sql: "CREATE OR REPLACE FUNCTION receiptq.f() RETURNS int LANGUAGE sql AS 'SELECT 2'")]
        #expect(try await pool.withConnection { try Migrator.pending(edited, on: $0) }.map(\.name) == ["functions/f.sql"],
                "a changed file makes the schema not current (readiness waits for migrate)")
        #expect(try await pool.withConnection { try Migrator.migrate(edited, on: $0) }.applied == ["functions/f.sql"])
        #expect(try await answer() == 2)
        #expect(try await pool.withConnection { try Migrator.pending(edited, on: $0) }.isEmpty)

        let broken = [table, .repeatable("functions/f.sql", sql: "CREATE OR REPLACE FUNCTION receiptq.f() RETURNS text LANGUAGE sql AS 'SELECT 3::text'")]
        let error = await #expect(throws: MigrationError.self) { try await pool.withConnection { try Migrator.migrate(broken, on: $0) } }
        #expect(error?.description.contains("functions/f.sql failed and was rolled back") == true, "\(String(describing: error))")
        #expect(try await answer() == 2, "the failed file changed nothing")
    }

    @Test func theRepositorysRepeatableFilesLoadBesideTheMigrations() throws {
        let loaded = try Migration.load(from: ScratchDatabase.migrationsDirectory())
        let repeatables = loaded.filter { $0.kind == .repeatable }.map(\.name)
        #expect(repeatables.contains("functions/move_owner.sql") && repeatables.contains("views/queue_depth.sql"))
        #expect(repeatables.firstIndex { $0.hasPrefix("views/") }! > repeatables.lastIndex { $0.hasPrefix("functions/") }!)
        #expect(loaded.prefix { $0.kind == .versioned }.count == loaded.filter { $0.kind == .versioned }.count, "numbered ones first")
    }

    @Test func migrationFilesMustBeNumberedAndUnique() throws {
        let tree = FileManager.default.temporaryDirectory.appendingPathComponent("sql-\(UUID().uuidString)")
        let directory = tree.appendingPathComponent("migrations")
        for folder in ["migrations", "functions", "views"] {
            try FileManager.default.createDirectory(at: tree.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try "SELECT 1".write(to: directory.appendingPathComponent("0001_first.sql"), atomically: true, encoding: .utf8)
        try "SELECT 1".write(to: directory.appendingPathComponent("0001_again.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.self) { try Migration.load(from: directory) }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("0001_again.sql"))
        try "SELECT 1".write(to: directory.appendingPathComponent("second.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationError.self) { try Migration.load(from: directory) }
    }

    /// A tree without its functions or views is a schema without its guards and ops views: refused.
    @Test func aMigrationsFolderWithoutItsFunctionsAndViewsIsRefused() throws {
        let tree = FileManager.default.temporaryDirectory.appendingPathComponent("sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("migrations"), withIntermediateDirectories: true)
        try "SELECT 1".write(to: tree.appendingPathComponent("migrations/0001_first.sql"), atomically: true, encoding: .utf8)
        let error = #expect(throws: MigrationError.self) { try Migration.load(from: tree.appendingPathComponent("migrations")) }
        #expect(error?.description.contains("functions is missing") == true || error?.description.contains("/functions is missing") == true,
                "\(String(describing: error))")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("functions"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("views"), withIntermediateDirectories: true)
        #expect(try Migration.load(from: tree.appendingPathComponent("migrations")).map(\.name) == ["0001_first.sql"])
    }

    /// The binary carries SQL/ byte for byte (Deploy/embed-sql, run by ./Deploy/dev schema).
    @Test func theBinaryCarriesEverySchemaFileByteForByte() throws {
        let directory = ScratchDatabase.migrationsDirectory()
        let embedded = try EmbeddedSQL.migrations()
        let files = try Migration.load(from: directory)
        #expect(embedded.map(\.path) == files.map(\.path), "run ./Deploy/dev schema (Deploy/embed-sql)")
        for (a, b) in zip(embedded, files) where a != b {
            Issue.record("\(a.path) in the binary is not the file: run ./Deploy/dev schema (Deploy/embed-sql)")
        }
        let schema = try String(contentsOf: directory.deletingLastPathComponent().appendingPathComponent("schema.sql"), encoding: .utf8)
        #expect(EmbeddedSQL.schema == schema, "SQL/schema.sql in the binary is not the file: run ./Deploy/dev schema")
    }
}
