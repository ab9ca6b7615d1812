import ArgumentParser
import Foundation
import Postgres

/// `--database-url`, falling back to `DATABASE_URL`.
public struct DatabaseOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("database-url"),
            help: "PostgreSQL URI (postgresql://user:pass@host:port/db) or key=value conninfo. Default: $DATABASE_URL, or the file named by $DATABASE_URL_FILE.")
    public var url: String?

    public init() {}

    /// The validated configuration; a missing or malformed URL is a one-line error naming it.
    public func configuration(applicationName: String, environment: EnvironmentReader = EnvironmentReader()) throws -> PostgresConfiguration {
        guard let text = try url ?? environment.secret("DATABASE_URL") else {
            throw ConfigurationError("no database given: pass --database-url or set DATABASE_URL (or DATABASE_URL_FILE)")
        }
        do {
            return try PostgresConfiguration(connectionString: text, applicationName: applicationName)
        } catch let error as PostgresError {
            throw ConfigurationError("--database-url / DATABASE_URL: \(error)")
        }
    }
}
