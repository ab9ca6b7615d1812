import ArgumentParser
import Foundation
import Postgres
import ReceiptQueue

typealias ReceiptQueueMigration = ReceiptQueue.Migration

/// `--database-url`, falling back to `DATABASE_URL`. Only the executable reads the environment.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database-url"),
            help: "PostgreSQL URI (postgresql://user:pass@host:port/db) or key=value conninfo. Default: $DATABASE_URL.")
    var url: String?

    /// The validated configuration; a missing or malformed URL is a one-line error naming it.
    func configuration(applicationName: String) throws -> PostgresConfiguration {
        guard let text = url ?? ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            throw ConfigurationError("no database given: pass --database-url or set DATABASE_URL")
        }
        do {
            return try PostgresConfiguration(connectionString: text, applicationName: applicationName)
        } catch let error as PostgresError {
            throw ConfigurationError("--database-url / DATABASE_URL: \(error)")
        }
    }
}

/// A setting that cannot work, reported as one line (ArgumentParser prints "Error: …").
struct ConfigurationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Durations on the command line: `500ms`, `2s`, `5m`, `72h`, `30d`.
extension Duration: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        for (suffix, seconds) in units where argument.hasSuffix(suffix) {
            guard let value = Double(argument.dropLast(suffix.count)), value >= 0, value.isFinite else { return nil }
            self = .milliseconds(Int64((value * seconds * 1000).rounded()))
            return
        }
        return nil
    }

    public static var defaultCompletionKind: CompletionKind { .default }
}

/// Where the SQL migrations are: `--migrations`, `RECEIPTQ_MIGRATIONS_DIR`, or found near the
/// working directory or the executable.
struct MigrationsOptions: ParsableArguments {
    @Option(name: .customLong("migrations"), help: "Folder of NNNN_name.sql files. Default: $RECEIPTQ_MIGRATIONS_DIR, ./SQL/migrations, or beside the executable.")
    var directory: String?

    func load() throws -> [ReceiptQueueMigration] {
        let path = directory ?? ProcessInfo.processInfo.environment["RECEIPTQ_MIGRATIONS_DIR"]
        let url: URL
        if let path {
            url = URL(fileURLWithPath: path)
        } else if let found = ReceiptQueueMigration.defaultDirectory(executable: URL(fileURLWithPath: CommandLine.arguments[0])) {
            url = found
        } else {
            throw ConfigurationError("cannot find SQL/migrations: pass --migrations or set RECEIPTQ_MIGRATIONS_DIR")
        }
        return try ReceiptQueueMigration.load(from: url)
    }
}
