import Foundation
import Postgres

/// A database of its own for one test or one lab run, created on the server named by
/// `DATABASE_URL` (the private cluster `./Deploy/dev` starts) and dropped by `drop()` (tests
/// leave theirs to the throwaway cluster). Empty here; `ReceiptQueueTesting` adds `migrated()`
/// for the product's schema, so the libpq layer's tests need nothing of the domain. Tests run
/// in parallel, each in a database of its own; benchmarks and the chaos suite never touch real
/// data. The role needs CREATEDB.
public struct ScratchDatabase: Sendable {
    public let name: String
    public let configuration: PostgresConfiguration
    /// For child processes (`receiptq …`) that must reach this database. It holds the password:
    /// never print it.
    public let connectionString: String
    private let server: PostgresConfiguration

    /// The server's configuration, from `DATABASE_URL`. Fails with a clear message when it is
    /// not set: tests and lab runs need a real PostgreSQL, which `./Deploy/dev` provides.
    public static func server(applicationName: String = "receiptq-tests") throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            throw TestSetupError("DATABASE_URL is not set: run the tests with ./Deploy/dev test (it starts PostgreSQL)")
        }
        return try PostgresConfiguration(connectionString: url, applicationName: applicationName)
    }

    /// Creates a new, empty database named `rq_<purpose>_<random>_<pid>`.
    /// - Parameter purpose: letters and digits only; it becomes part of the database's name.
    public static func create(server: PostgresConfiguration? = nil, purpose: String = "test") async throws -> ScratchDatabase {
        precondition(purpose.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }, "purpose must be letters and digits")
        let server = try server ?? self.server()
        let name = "rq_\(purpose)_\(UInt32.random(in: 0...UInt32.max))_\(getpid())"
        let admin = PostgresPool(configuration: server, size: 1)
        defer { admin.shutdown() }
        try await admin.query("CREATE DATABASE \(name)")  // generated name: fixed words and digits only
        return ScratchDatabase(name: name, configuration: server.with(database: name),
                               connectionString: server.connectionString(database: name), server: server)
    }

    public func pool(size: Int = 4) -> PostgresPool {
        PostgresPool(configuration: configuration, size: size)
    }

    /// Drops the database, closing whatever is still connected, unless `keep` (then its name is
    /// printed for a look with psql).
    public func drop(keep: Bool = false) async {
        if keep {
            print("kept database \(name)")
            return
        }
        let admin = PostgresPool(configuration: server, size: 1)
        defer { admin.shutdown() }
        _ = try? await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}

public struct TestSetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
