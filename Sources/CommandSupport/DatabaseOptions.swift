import ArgumentParser
import Foundation
import Postgres

/// `--database-url` (or `RECEIPTQ_DATABASE_URL`), falling back to `DATABASE_URL` / `DATABASE_URL_FILE`.
public struct DatabaseOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("database-url"),
            help: "PostgreSQL URI (postgresql://user:pass@host:port/db) or key=value conninfo; without it, DATABASE_URL or the file named by DATABASE_URL_FILE. Default: none (required).")
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
