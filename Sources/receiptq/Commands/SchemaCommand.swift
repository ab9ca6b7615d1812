import ArgumentParser
import CommandSupport
import Postgres
import ReceiptQueue

/// `receiptq schema`: what a database holds against the schema this binary carries.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Compare a database with the schema this binary carries.",
        subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List what the database lacks or holds beyond the schema this binary carries (exit 1 when anything differs).",
            discussion: """
                Compares every table, column, constraint, index, trigger, function, view and privilege of \
                the receiptq schema with SQL/schema.sql as the binary carries it — a dropped trigger, a \
                function changed by hand, a hand-made index, a privilege granted by hand. Needs the schema \
                owner's login (it builds the expected schema inside a transaction it rolls back); changes \
                nothing.
                """)

        @OptionGroup(title: "Database") var database: DatabaseOptions
        @OptionGroup(title: "Database") var migrations: MigrationsOptions

        func run() async throws {
            LogSetup.bootstrap(label: "receiptq.schema", defaultLevel: .error)
            guard let schema = migrations.schemaSQL() else {
                throw ConfigurationError("--migrations: no schema.sql beside \(migrations.folder()?.path ?? "the folder")")
            }
            let pool = PostgresPool(configuration: try database.configuration(applicationName: "receiptq-schema"), size: 1)
            defer { pool.shutdown() }
            let differences = try await pool.withConnection { try SchemaCatalog.verify(against: schema, on: $0) }
            for line in differences.missing { print("missing  \(line)") }
            for line in differences.extra { print("extra    \(line)") }
            if differences.isEmpty {
                print("the database holds the schema this binary carries (receiptq \(ReceiptQueueVersion.current)), nothing more")
                return
            }
            print("\(differences.missing.count) missing or different, \(differences.extra.count) extra")
            throw ExitCode(1)
        }
    }
}
