import Foundation
import Postgres
import ReceiptQueue

/// A scratch database for one test, created on the server named by `DATABASE_URL` (the private
/// cluster `./Deploy/dev test` starts) and migrated with the repository's migrations. Tests run
/// in parallel, each in a database of its own.
public struct TestDatabase: Sendable {
    public let name: String
    public let configuration: PostgresConfiguration
    /// A connection string for child processes (`receiptq …`) that points at this database.
    public let connectionString: String

    /// The server's configuration, from `DATABASE_URL`. Fails the test with a clear message when
    /// it is not set: these tests need a real PostgreSQL, which `./Deploy/dev test` provides.
    public static func server() throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            throw TestSetupError("DATABASE_URL is not set: run the tests with ./Deploy/dev test (it starts PostgreSQL)")
        }
        return try PostgresConfiguration(connectionString: url, applicationName: "receiptq-tests")
    }

    /// Creates and (by default) migrates a new database.
    public static func create(migrated: Bool = true) async throws -> TestDatabase {
        let server = try server()
        let name = "rq_test_\(UInt32.random(in: 0...UInt32.max))_\(getpid())"
        let admin = PostgresPool(configuration: server, size: 1)
        defer { admin.shutdown() }
        try await admin.query("CREATE DATABASE \(name)")  // generated name: digits and letters only
        let database = TestDatabase(name: name, configuration: server.with(database: name),
                                    connectionString: server.connectionString(database: name))
        if migrated {
            let pool = database.pool(size: 1)
            defer { pool.shutdown() }
            let migrations = try Migration.load(from: migrationsDirectory())
            _ = try await pool.withConnection { try Migrator.migrate(migrations, on: $0) }
        }
        return database
    }

    public func pool(size: Int = 4) -> PostgresPool {
        PostgresPool(configuration: configuration, size: size)
    }

    /// The repository's SQL/migrations.
    public static func migrationsDirectory() -> URL {
        if let path = ProcessInfo.processInfo.environment["RECEIPTQ_MIGRATIONS_DIR"] {
            return URL(fileURLWithPath: path)
        }
        return repositoryRoot().appendingPathComponent("SQL/migrations")
    }

    static func repositoryRoot() -> URL {
        // Sources/ReceiptQueueTesting/TestDatabase.swift → repository root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

public struct TestSetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
