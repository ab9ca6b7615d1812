import ArgumentParser
import Foundation
import ReceiptQueue

/// The schema a command applies or compares with: the one the binary carries (`EmbeddedSQL`), or
/// — for developing the schema — a `SQL/migrations` folder with its `functions` and `views`
/// siblings (`--migrations`, `RECEIPTQ_MIGRATIONS`).
public struct MigrationsOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("migrations"),
            help: "For developing the schema: a SQL/migrations folder (its functions and views beside it) instead of the schema inside this binary. Default: the binary's own.")
    public var directory: String?

    public init() {}

    /// The folder given, if any.
    public func folder(environment: EnvironmentReader = EnvironmentReader()) -> URL? {
        (directory ?? OptionVariable.names(for: "migrations").lazy.compactMap(environment.string).first).map { URL(fileURLWithPath: $0) }
    }

    public func load(environment: EnvironmentReader = EnvironmentReader()) throws -> [Migration] {
        guard let url = folder(environment: environment) else { return try EmbeddedSQL.migrations() }
        do {
            return try Migration.load(from: url)
        } catch let error as MigrationError {
            throw ConfigurationError("--migrations: \(error)")
        }
    }

    /// `SQL/schema.sql` of the same schema: the binary's, or the one beside the folder given (nil
    /// when that folder has none).
    public func schemaSQL(environment: EnvironmentReader = EnvironmentReader()) -> String? {
        guard let url = folder(environment: environment) else { return EmbeddedSQL.schema }
        return try? String(contentsOf: url.deletingLastPathComponent().appendingPathComponent("schema.sql"), encoding: .utf8)
    }
}
