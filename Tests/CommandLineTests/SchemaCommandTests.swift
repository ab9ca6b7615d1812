import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import Testing

/// The binary installs its own schema (issue 43): a copy of `receiptq` alone migrates a fresh
/// database to exactly `SQL/schema.sql`; a migration changed after it was applied stops it (exit
/// 78); `migrate --status` says what is applied, pending and drifted; `schema verify` finds what
/// was changed by hand; and an owner that is not a superuser (as on RDS or Cloud SQL) migrates and
/// makes logins.
@Suite("receiptq migrate and schema verify: the binary carries its schema")
struct SchemaCommandTests {
    /// The binary alone in an empty folder, run as installed: no SQL tree, no RECEIPTQ_MIGRATIONS.
    static func alone() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptq-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("receiptq")
        try FileManager.default.copyItem(at: ReceiptQBinary.url, to: copy)
        return copy
    }

    static func run(_ binary: URL, _ arguments: [String]) async throws -> (status: Int32?, stdout: String, stderr: String) {
        try await ChildProcess.run(binary, arguments: arguments, removing: ["RECEIPTQ_MIGRATIONS"], timeout: .seconds(60))
    }

    @Test func aCopyOfTheBinaryAloneMigratesAFreshDatabaseToExactlySchemaSQL() async throws {
        let binary = try Self.alone()
        let database = try await ScratchDatabase.create()
        let url = database.connectionString
        let migrated = try await Self.run(binary, ["migrate", "--database-url", url])
        #expect(migrated.status == 0, "\(migrated.stdout) \(migrated.stderr)")
        #expect(migrated.stdout.contains("applied 0001_queue.sql") && migrated.stdout.contains("schema verified"), "\(migrated.stdout)")
        let verified = try await Self.run(binary, ["schema", "verify", "--database-url", url])
        #expect(verified.status == 0 && verified.stdout.contains("holds the schema this binary carries"), "\(verified.stdout)")
        // What the binary applied is what SQL/ holds, file for file.
        let pool = database.pool(size: 1)
        let applied = try await pool.query("SELECT count(*) FROM receiptq.schema_migrations")[0].decode("count", as: Int.self)
        pool.shutdown()
        #expect(applied == (try Migration.load(from: ScratchDatabase.migrationsDirectory())).filter { $0.kind == .versioned }.count)
        let again = try await Self.run(binary, ["migrate", "--database-url", url])
        #expect(again.status == 0 && again.stdout.contains("schema is current"))
        await database.drop()
    }

    @Test func statusSaysAppliedPendingAndDriftedAndAChangedMigrationStopsMigrateWithExit78() async throws {
        let binary = try Self.alone()
        let database = try await ScratchDatabase.create()
        let url = database.connectionString
        let before = try await Self.run(binary, ["migrate", "--status", "--database-url", url])
        #expect(before.status == 0 && before.stdout.contains("pending  migrations/0001_queue.sql"), "\(before.stdout)")
        _ = try await Self.run(binary, ["migrate", "--database-url", url])
        let after = try await Self.run(binary, ["migrate", "--status", "--database-url", url])
        #expect(after.status == 0 && after.stdout.contains("applied  migrations/0035_purchase_owners.sql")
                && after.stdout.contains("0 pending, 0 drifted"), "\(after.stdout)")
        // A migration applied from another text: as a database migrated by an earlier commit whose file was edited since.
        let pool = database.pool(size: 1)
        try await pool.query("UPDATE receiptq.schema_migrations SET checksum = repeat('0', 64) WHERE version = 24")
        try await pool.query("INSERT INTO receiptq.schema_migrations (version, name, checksum) VALUES (9999, '9999_from_the_future.sql', 'x')")
        pool.shutdown()
        let drifted = try await Self.run(binary, ["migrate", "--status", "--database-url", url])
        #expect(drifted.status == 78, "\(drifted.stdout) \(drifted.stderr)")
        #expect(drifted.stdout.contains("drifted  migrations/0024_support_and_fleet_control.sql")
                && drifted.stdout.contains("unknown  migrations/9999_from_the_future.sql"), "\(drifted.stdout)")
        let refused = try await Self.run(binary, ["migrate", "--database-url", url])
        #expect(refused.status == 78 && refused.stderr.contains("0024_support_and_fleet_control.sql was changed after it was applied"),
                "\(refused.stderr)")
        await database.drop()
    }

    @Test func verifyFindsADroppedTriggerAndAHandMadeIndexAndMigrateRefusesUntilReapplied() async throws {
        let binary = try Self.alone()
        let database = try await ScratchDatabase.create()
        let url = database.connectionString
        _ = try await Self.run(binary, ["migrate", "--database-url", url])
        let pool = database.pool(size: 1)
        try await pool.query("DROP TRIGGER jobs_guard_state ON receiptq.jobs")
        try await pool.query("CREATE INDEX by_hand ON receiptq.grants (product_id)")
        pool.shutdown()
        let verified = try await Self.run(binary, ["schema", "verify", "--database-url", url])
        #expect(verified.status == 1, "\(verified.stdout)")
        #expect(verified.stdout.contains("missing  trigger jobs.jobs_guard_state") && verified.stdout.contains("extra    index grants.by_hand"),
                "\(verified.stdout)")
        let refused = try await Self.run(binary, ["migrate", "--database-url", url])
        #expect(refused.status == 78 && refused.stderr.contains("trigger jobs.jobs_guard_state"), "\(refused.stderr)")
        let repaired = try await Self.run(binary, ["migrate", "--reapply", "--database-url", url])
        #expect(repaired.status == 0 && repaired.stdout.contains("schema verified") && repaired.stderr.contains("by_hand"),
                "\(repaired.stdout) \(repaired.stderr)")
        await database.drop()
    }

    /// RDS and Cloud SQL give their owner CREATEROLE, not superuser.
    @Test func anOwnerThatIsNotASuperuserMigratesAndMakesLogins() async throws {
        let server = try ScratchDatabase.server()
        let admin = PostgresPool(configuration: server, size: 1)
        defer { admin.shutdown() }
        let owner = "rq_owner_\(UUID().uuidString.prefix(8).lowercased())"
        let name = "rq_managed_\(UUID().uuidString.prefix(8).lowercased())"
        // The server's password, so the same connection string serves with another user.
        let password = (server.parameter("password") ?? "").replacingOccurrences(of: "'", with: "''")
        try await admin.query("CREATE ROLE \(owner) LOGIN NOSUPERUSER CREATEROLE NOCREATEDB PASSWORD '\(password)'")
        try await admin.query("CREATE DATABASE \(name) OWNER \(owner)")
        let url = server.connectionString(database: name, user: owner)
        let binary = try Self.alone()
        let migrated = try await Self.run(binary, ["migrate", "--database-url", url])
        #expect(migrated.status == 0, "\(migrated.stdout) \(migrated.stderr)")
        let passwordFile = FileManager.default.temporaryDirectory.appendingPathComponent("rq-login-\(UUID().uuidString)")
        try "login-password".write(to: passwordFile, atomically: true, encoding: .utf8)
        let login = "rq_api_\(UUID().uuidString.prefix(8).lowercased())"
        let made = try await Self.run(binary, ["roles", "create-login", "--database-url", url, "--role", "api", "--login", login,
                                               "--password-file", passwordFile.path])
        #expect(made.status == 0, "\(made.stdout) \(made.stderr)")
        try await admin.query("DROP DATABASE \(name) WITH (FORCE)")
        try await admin.query("DROP ROLE IF EXISTS \(login)")
        try await admin.query("DROP ROLE \(owner)")
    }
}

/// The API says at start when this login's commits would not survive a crash (a 202 means committed).
@Suite("receiptq api: a 202 that may not survive a crash is said at start")
struct CommitDurabilityWarningTests {
    @Test func anAPIWhoseLoginCommitsAsynchronouslySaysSo() async throws {
        let database = try await ScratchDatabase.migrated()
        let pool = database.pool(size: 1)
        try await pool.query("ALTER DATABASE \(database.name) SET synchronous_commit = off")
        pool.shutdown()
        let port = try FreePort.pick()
        let api = try ChildProcess(arguments: [
            "api", "--database-url", try await database.connectionString(as: .api), "--port", "\(port)", "--admin-port", "0",
            "--bundle-ids", "com.example.app", "--app-apple-id", "1234567890", "--receipt-check", "off",
        ], environment: ["RECEIPTQ_API_TOKENS": String(repeating: "a", count: 64)])
        let said = await eventually(timeout: .seconds(20)) { api.stderr.contains("a 202 may not survive a crash") }
        api.kill(SIGTERM)
        _ = await api.wait(timeout: .seconds(10))
        #expect(said, "\(api.stderr.suffix(2000))")
        #expect(api.stderr.contains("synchronous_commit is off"))
        await database.drop()
    }
}
