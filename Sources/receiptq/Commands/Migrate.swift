import ArgumentParser
import CommandSupport
import Foundation
import Postgres
import ReceiptQueue

/// `receiptq migrate`: applies the schema the binary carries — each missing migration once, in
/// order, then each changed function and view — under an advisory lock; then compares the database
/// with the schema it should now hold.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the schema this binary carries: what is missing, once each (safe to run concurrently and repeatedly).",
        discussion: """
            The migrations, functions and views are inside the binary: a copy of it alone migrates a \
            database. A migration changed after it was applied stops it (exit 78): restore the file and add a \
            new migration. When it is done, the database is compared with the schema this binary carries \
            (SQL/schema.sql): a part missing or different stops it (exit 78); something extra (a hand-made \
            index) is reported. --status shows each migration applied, pending or drifted and changes \
            nothing (exit 78 when one drifted). --reapply applies every function and view file again \
            (repairs a trigger or function dropped or changed by hand). `receiptq schema verify` compares \
            without migrating.
            """)

    @OptionGroup(title: "Database") var database: DatabaseOptions
    @OptionGroup(title: "Database") var migrations: MigrationsOptions

    @Flag(help: "Show each migration and function or view file: applied, pending, drifted, changed; change nothing.")
    var status = false

    @Flag(help: "Apply every function and view file again, changed or not: repairs a trigger, function or view dropped or changed by hand.")
    var reapply = false

    func run() async throws {
        LogSetup.bootstrap(label: "receiptq.migrate", defaultLevel: .error)
        let files = try migrations.load()
        let config = try database.configuration(applicationName: "receiptq-migrate")
        let pool = PostgresPool(configuration: config, size: 1)
        defer { pool.shutdown() }
        if status {
            let state = try await pool.withConnection { try MigrationStatus.read(files, on: $0) }
            print(MigrationStatusText.render(state, version: ReceiptQueueVersion.current))
            if !state.drifted.isEmpty {
                throw MigrationError("\(state.drifted.count) migration(s) drifted: \(state.drifted.map(\.path).joined(separator: ", "))")
            }
            return
        }
        let report = try await pool.withConnection { try Migrator.migrate(files, reapplyRepeatables: reapply, on: $0) }
        if report.applied.isEmpty {
            print("schema is current (\(report.alreadyApplied) migrations applied before)")
        } else {
            print("applied \(report.applied.joined(separator: ", ")) (\(report.alreadyApplied) applied before)")
        }
        guard let schema = migrations.schemaSQL() else {
            print("not compared with a schema.sql: none beside \(migrations.folder()?.path ?? "")")
            return
        }
        let differences = try await pool.withConnection { try SchemaCatalog.verify(against: schema, on: $0) }
        for line in differences.extra {
            FileHandle.standardError.write(Data("receiptq migrate: not in the schema (made by hand?): \(line)\n".utf8))
        }
        guard differences.missing.isEmpty else {
            throw MigrationError("the database lacks \(differences.missing.count) part(s) of the schema this binary carries, or holds them "
                + "otherwise: " + differences.missing.prefix(20).joined(separator: "; ")
                + (differences.missing.count > 20 ? "; …" : "") + " (receiptq schema verify lists them all; "
                + "receiptq migrate --reapply restores the functions, triggers and views)")
        }
        print("schema verified: the database holds every part of the schema (\(differences.extra.count) extra)")
    }
}

/// `receiptq migrate --status` as a person reads it.
enum MigrationStatusText {
    static func render(_ status: MigrationStatus, version: String) -> String {
        var lines = ["receiptq \(version): \(status.entries.filter { $0.state == .applied || $0.state == .current }.count) applied, "
                     + "\(status.pending.count) pending, \(status.drifted.count) drifted, \(status.unknown.count) unknown"]
        let formatter = ISO8601DateFormatter()
        for entry in status.entries {
            var line = "  \(entry.state.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(entry.path)"
            if let at = entry.appliedAt { line += "  (\(formatter.string(from: at)))" }
            if entry.state == .drifted {
                line += "  recorded \(entry.recorded?.prefix(12) ?? "?")…, this binary's \(entry.expected?.prefix(12) ?? "?")…"
            }
            if entry.state == .unknown { line += "  (applied by a newer release?)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
