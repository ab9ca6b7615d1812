import Foundation
import Postgres

/// One numbered SQL file from `SQL/migrations` (`NNNN_name.sql`).
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Reads every `NNNN_name.sql` in `directory`, sorted by version. Two files with one
    /// version, or a file name of another shape ending in `.sql`, is an error.
    public static func load(from directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError("cannot read migrations folder \(directory.path): \(error.localizedDescription)")
        }
        var migrations: [Migration] = []
        for name in names where name.hasSuffix(".sql") {
            let stem = name.dropLast(4)
            guard stem.count > 5, let version = Int(stem.prefix(4)), stem.dropFirst(4).first == "_" else {
                throw MigrationError("migration file \(name) is not named NNNN_name.sql")
            }
            let sql = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (a, b) in zip(migrations, migrations.dropFirst()) where a.version == b.version {
            throw MigrationError("two migrations have version \(a.version): \(a.name) and \(b.name)")
        }
        return migrations
    }

    /// Where the migrations are when no folder is given: `RECEIPTQ_MIGRATIONS_DIR` is read by the
    /// executable; this looks in `./SQL/migrations`, then beside the executable
    /// (`../share/receiptq/migrations`, as installed), then in the parents of the executable's
    /// folder (a build inside the repository).
    public static func defaultDirectory(executable: URL) -> URL? {
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("SQL/migrations")]
        let binDirectory = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(binDirectory.appendingPathComponent("../share/receiptq/migrations").standardized)
        var parent = binDirectory
        for _ in 0..<6 {
            parent = parent.deletingLastPathComponent()
            candidates.append(parent.appendingPathComponent("SQL/migrations"))
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }
}

public struct MigrationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Applies migrations: each once, in order, each in its own transaction, under an advisory lock
/// so concurrent `receiptq migrate` runs (e.g. every pod starting at once) take turns. Records
/// version and checksum in `receiptq.schema_migrations` and refuses to go on when an applied
/// file was changed afterwards.
public enum Migrator {
    /// Advisory lock key (classid, objid) that serialises migrations.
    static let lockKey: (Int32, Int32) = (0x5251_5551 & 0x7fff_ffff, 2)

    static let bootstrapSQL = """
        CREATE SCHEMA IF NOT EXISTS receiptq;
        CREATE TABLE IF NOT EXISTS receiptq.schema_migrations (
            version    integer PRIMARY KEY,
            name       text NOT NULL,
            checksum   text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        );
        COMMENT ON TABLE receiptq.schema_migrations IS 'Migrations applied by receiptq migrate (SHA-256 of each file).'
        """
    static let appliedSQL = "SELECT version, name, checksum FROM receiptq.schema_migrations ORDER BY version"
    static let checksumSQL = "SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS checksum"
    static let recordSQL = """
        INSERT INTO receiptq.schema_migrations (version, name, checksum)
        VALUES ($1, $2, encode(sha256(convert_to($3, 'UTF8')), 'hex'))
        """

    public struct Report: Sendable, Equatable {
        public var applied: [String]
        public var alreadyApplied: Int
    }

    /// Applies what is missing. Throws `MigrationError` for a changed file; a failing migration
    /// rolls back alone and stops the run (earlier ones stay applied).
    public static func migrate(_ migrations: [Migration], on connection: PostgresConnection) throws -> Report {
        try connection.query("SELECT pg_advisory_lock($1, $2)", [lockKey.0, lockKey.1])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1, $2)", [lockKey.0, lockKey.1]) }
        try connection.execute(script: bootstrapSQL)
        let applied = try appliedChecksums(on: connection)
        var report = Report(applied: [], alreadyApplied: 0)
        for migration in migrations {
            if let recorded = applied[migration.version] {
                let checksum: String = try connection.query(checksumSQL, [migration.sql])[0].decode("checksum")
                guard recorded == checksum else {
                    throw MigrationError("migration \(migration.name) was changed after it was applied "
                        + "(recorded checksum \(recorded.prefix(12))…, file \(checksum.prefix(12))…); "
                        + "restore the file and add a new migration instead")
                }
                report.alreadyApplied += 1
                continue
            }
            do {
                try connection.transaction { connection in
                    try connection.execute(script: migration.sql)
                    try connection.query(recordSQL, [migration.version, migration.name, migration.sql])
                }
            } catch {
                throw MigrationError("migration \(migration.name) failed and was rolled back: \(error)")
            }
            report.applied.append(migration.name)
        }
        return report
    }

    /// Migrations in `migrations` not yet applied (empty: the schema is current).
    public static func pending(_ migrations: [Migration], on connection: PostgresConnection) throws -> [Migration] {
        let exists: Bool = try connection.query("SELECT to_regclass('receiptq.schema_migrations') IS NOT NULL AS present")[0].decode("present")
        guard exists else { return migrations }
        let applied = try appliedChecksums(on: connection)
        return migrations.filter { applied[$0.version] == nil }
    }

    static func appliedChecksums(on connection: PostgresConnection) throws -> [Int: String] {
        var applied: [Int: String] = [:]
        for row in try connection.query(appliedSQL) {
            applied[try row.decode("version")] = try row.decode("checksum")
        }
        return applied
    }
}
