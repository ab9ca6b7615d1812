import Foundation
import Postgres

public struct MigrationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
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
    /// rolls back alone and stops the run (earlier ones stay applied). `reapplyRepeatables`: every
    /// function and view file again, changed or not — what repairs a trigger or function dropped
    /// or changed by hand.
    public static func migrate(_ migrations: [Migration], reapplyRepeatables: Bool = false,
                               on connection: PostgresConnection) throws -> Report {
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
                guard reapplyRepeatables || repeatables[migration.name] != checksums[migration.name] else {
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
