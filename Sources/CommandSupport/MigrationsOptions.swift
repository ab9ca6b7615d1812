import ArgumentParser
import Foundation
import ReceiptQueue

/// Where the SQL migrations are: `--migrations`, `RECEIPTQ_MIGRATIONS_DIR`, or found near the
/// working directory or the executable.
public struct MigrationsOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("migrations"), help: "Folder of NNNN_name.sql files. Default: ./SQL/migrations, or beside the executable.")
    public var directory: String?

    public init() {}

    public func load(environment: EnvironmentReader = EnvironmentReader()) throws -> [Migration] {
        let url: URL
        if let path = directory ?? environment.string("RECEIPTQ_MIGRATIONS_DIR") {
            url = URL(fileURLWithPath: path)
        } else if let found = Migration.defaultDirectory(executable: URL(fileURLWithPath: CommandLine.arguments[0])) {
            url = found
        } else {
            throw ConfigurationError("cannot find SQL/migrations: pass --migrations or set RECEIPTQ_MIGRATIONS_DIR")
        }
        do {
            return try Migration.load(from: url)
        } catch let error as MigrationError {
            throw ConfigurationError("--migrations: \(error)")
        }
    }
}
