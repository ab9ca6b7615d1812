import Foundation
import Postgres

/// One SQL file of the schema: a numbered migration from `SQL/migrations` (`NNNN_name.sql`),
/// applied once, or a repeatable one from `SQL/functions` or `SQL/views` (`functions/name.sql`),
/// the one home of a function's or a view's current definition, applied again whenever it changes.
public struct Migration: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Applied once, in version order; never edited after it was applied.
        case versioned
        /// `CREATE OR REPLACE` of one function or view, applied after every numbered migration
        /// whenever its text differs from what was applied last.
        case repeatable
    }

    /// The numbered migration's version; 0 for a repeatable one.
    public var version: Int
    public var name: String
    public var sql: String
    public var kind: Kind

    public init(version: Int, name: String, sql: String, kind: Kind = .versioned) {
        self.version = version
        self.name = name
        self.sql = sql
        self.kind = kind
    }

    /// A repeatable file, named by its folder: `functions/move_owner.sql`.
    public static func repeatable(_ name: String, sql: String) -> Migration {
        Migration(version: 0, name: name, sql: sql, kind: .repeatable)
    }

    /// The folders of repeatable files beside the migrations folder, in the order they are applied
    /// (views may read functions).
    public static let repeatableFolders = ["functions", "views"]

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
        return migrations + (try loadRepeatables(beside: directory))
    }

    /// The repeatable files in `functions/` and `views/` beside `directory` (absent folders: none),
    /// each folder sorted by name.
    static func loadRepeatables(beside directory: URL) throws -> [Migration] {
        var repeatables: [Migration] = []
        for folder in repeatableFolders {
            let url = directory.deletingLastPathComponent().appendingPathComponent(folder)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { continue }
            for name in names.sorted() where name.hasSuffix(".sql") {
                let sql = try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
                repeatables.append(.repeatable(folder + "/" + name, sql: sql))
            }
        }
        return repeatables
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

/// Applies migrations: each numbered one once, in order, each in its own transaction, under an
/// advisory lock so concurrent `receiptq migrate` runs (e.g. every pod starting at once) take
/// turns. Records version and checksum in `receiptq.schema_migrations` and refuses to go on when
/// an applied file was changed afterwards. Then each repeatable file (a function's or a view's
/// `CREATE OR REPLACE`) whose checksum differs from `receiptq.schema_repeatables`, in its own
/// transaction: editing that file is how a function or view changes.
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
        COMMENT ON TABLE receiptq.schema_migrations IS 'Migrations applied by receiptq migrate (SHA-256 of each file).';
        CREATE TABLE IF NOT EXISTS receiptq.schema_repeatables (
            name       text PRIMARY KEY,
            checksum   text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        );
        COMMENT ON TABLE receiptq.schema_repeatables IS
            'Repeatable files (SQL/functions, SQL/views) as last applied by receiptq migrate (SHA-256 of each).'
        """
    static let appliedSQL = "SELECT version, name, checksum FROM receiptq.schema_migrations ORDER BY version"
    static let checksumSQL = "SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS checksum"
    static let recordSQL = """
        INSERT INTO receiptq.schema_migrations (version, name, checksum)
        VALUES ($1, $2, encode(sha256(convert_to($3, 'UTF8')), 'hex'))
        """
    static let recordRepeatableSQL = """
        INSERT INTO receiptq.schema_repeatables (name, checksum) VALUES ($1, encode(sha256(convert_to($2, 'UTF8')), 'hex'))
        ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()
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
        let repeatables = try repeatableChecksums(on: connection)
        let checksums = try repeatableChecksums(of: migrations, on: connection)
        var report = Report(applied: [], alreadyApplied: 0)
        // Numbered migrations first, in order; then the repeatable files, in the order given.
        for migration in migrations.filter({ $0.kind == .versioned }) + migrations.filter({ $0.kind == .repeatable }) {
            if migration.kind == .repeatable {
                guard repeatables[migration.name] != checksums[migration.name] else {
                    report.alreadyApplied += 1
                    continue
                }
                do {
                    try connection.transaction { connection in
                        try connection.execute(script: migration.sql)
                        try connection.query(recordRepeatableSQL, [migration.name, migration.sql])
                    }
                } catch {
                    throw MigrationError("\(migration.name) failed and was rolled back: \(error) "
                        + "(a repeatable file may only CREATE OR REPLACE; a change PostgreSQL cannot replace in place needs a numbered migration first)")
                }
                report.applied.append(migration.name)
                continue
            }
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

    /// Migrations in `migrations` not yet applied, and repeatable files changed since they were
    /// (empty: the schema is current).
    public static func pending(_ migrations: [Migration], on connection: PostgresConnection) throws -> [Migration] {
        let exists: Bool = try connection.query("SELECT to_regclass('receiptq.schema_migrations') IS NOT NULL AS present")[0].decode("present")
        guard exists else { return migrations }
        let applied = try appliedChecksums(on: connection)
        let repeatables = try repeatableChecksums(on: connection)
        let checksums = try repeatableChecksums(of: migrations, on: connection)
        return migrations.filter { migration in
            switch migration.kind {
            case .versioned: applied[migration.version] == nil
            case .repeatable: repeatables[migration.name] != checksums[migration.name]
            }
        }
    }

    /// The SHA-256 of each repeatable file, by name, in one round trip (as PostgreSQL records it).
    static func repeatableChecksums(of migrations: [Migration], on connection: PostgresConnection) throws -> [String: String] {
        let files = migrations.filter { $0.kind == .repeatable }
        guard !files.isEmpty else { return [:] }
        var checksums: [String: String] = [:]
        for row in try connection.query("""
            SELECT name, encode(sha256(convert_to(sql, 'UTF8')), 'hex') AS checksum FROM unnest($1::text[], $2::text[]) AS f(name, sql)
            """, [files.map(\.name), files.map(\.sql)]) {
            checksums[try row.decode("name")] = try row.decode("checksum")
        }
        return checksums
    }

    static func repeatableChecksums(on connection: PostgresConnection) throws -> [String: String] {
        let exists: Bool = try connection.query("SELECT to_regclass('receiptq.schema_repeatables') IS NOT NULL AS present")[0].decode("present")
        guard exists else { return [:] }
        var applied: [String: String] = [:]
        for row in try connection.query("SELECT name, checksum FROM receiptq.schema_repeatables") {
            applied[try row.decode("name")] = try row.decode("checksum")
        }
        return applied
    }

    static func appliedChecksums(on connection: PostgresConnection) throws -> [Int: String] {
        var applied: [Int: String] = [:]
        for row in try connection.query(appliedSQL) {
            applied[try row.decode("version")] = try row.decode("checksum")
        }
        return applied
    }
}
