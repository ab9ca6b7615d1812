import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue
import Synchronization

extension ScratchDatabase {
    /// This database as `role`'s process logs in to it: `rq_test_<role>`, a member of the role's
    /// group (migration 0011) with the password of `DATABASE_URL`. Tests run the API, workers and
    /// schedulers this way, so a grant a process lacks fails a test with PostgreSQL's own
    /// "permission denied". The database must be migrated.
    public func configuration(as role: ProcessRole) async throws -> PostgresConfiguration {
        try await TestLogins.ensure(using: self)
        return configuration.with(user: TestLogins.login(role))
    }

    /// The same, for a child process (`--database-url`). Holds the password: never print it.
    public func connectionString(as role: ProcessRole) async throws -> String {
        try await TestLogins.ensure(using: self)
        return configuration.connectionString(database: name, user: TestLogins.login(role))
    }
}

/// The test logins, one per process role. Roles belong to the whole cluster while databases come
/// and go, so they are created once per cluster (and checked once per test process) through the
/// product's own `CreateLogin`; tests in other processes racing to create them is not an error.
public enum TestLogins {
    public static func login(_ role: ProcessRole) -> String { "rq_test_\(role.rawValue)" }

    private static let made = Mutex<Task<Void, any Error>?>(nil)

    static func ensure(using database: ScratchDatabase) async throws {
        let task = made.withLock { made -> Task<Void, any Error> in
            if let made { return made }
            let task = Task { try await create(using: database) }
            made = task
            return task
        }
        do {
            try await task.value
        } catch {
            made.withLock { $0 = nil }   // the next test tries again
            throw error
        }
    }

    static let memberSQL = """
        SELECT pg_has_role(rolname, $2, 'MEMBER') AS member FROM pg_roles WHERE rolname = $1
        """

    private static func create(using database: ScratchDatabase) async throws {
        let password = database.configuration.parameter("password")
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        try await pool.withConnection { connection in
            for role in ProcessRole.allCases {
                let login = login(role)
                func present() throws -> Bool {
                    try connection.query(memberSQL, [login, role.groupName]).first?.decode("member") ?? false
                }
                guard try !present() else { continue }
                do {
                    try CreateLogin.run(login: login, password: password, role: role, on: connection)
                } catch let error as PostgresError where ["XX000", "23505", "42710"].contains(error.sqlState ?? "") {
                    // Another test process made it at the same moment ("tuple concurrently updated").
                    guard try present() else { throw error }
                }
            }
        }
    }
}
