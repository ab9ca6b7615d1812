import Foundation
import Postgres
import ReceiptQueue

/// A database a benchmark creates on the configured server, migrates, and drops at the end, so
/// benchmarks never touch real data. The role needs CREATEDB.
struct ScratchDatabase {
    let name: String
    let configuration: PostgresConfiguration
    /// For child processes (contains the password: never print it).
    let connectionString: String
    private let admin: PostgresPool

    static func create(server: PostgresConfiguration, purpose: String, migrations: [ReceiptQueue.Migration]) async throws -> ScratchDatabase {
        let name = "receiptq_\(purpose)_\(getpid())_\(Int.random(in: 1000...9999))"
        let admin = PostgresPool(configuration: server, size: 1)
        try await admin.query("CREATE DATABASE \(name)")   // name made above from fixed words and digits
        let scratch = ScratchDatabase(name: name, configuration: server.with(database: name),
                                      connectionString: server.connectionString(database: name), admin: admin)
        let pool = PostgresPool(configuration: scratch.configuration, size: 1)
        defer { pool.shutdown() }
        _ = try await pool.withConnection { try Migrator.migrate(migrations, on: $0) }
        return scratch
    }

    /// Drops the database (closing whatever is still connected) unless `keep`.
    func drop(keep: Bool = false) async {
        defer { admin.shutdown() }
        if keep {
            print("kept database \(name)")
            return
        }
        _ = try? await admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}
