import Foundation
import Postgres
import PostgresTesting
import ReceiptQueue

extension ScratchDatabase {
    /// A new database with the product's schema: `migrations`, by default the repository's
    /// `SQL/migrations`.
    public static func migrated(server: PostgresConfiguration? = nil, purpose: String = "test",
                                migrations: [Migration]? = nil) async throws -> ScratchDatabase {
        let database = try await create(server: server, purpose: purpose)
        let files = try migrations ?? Migration.load(from: migrationsDirectory())
        let pool = database.pool(size: 1)
        defer { pool.shutdown() }
        _ = try await pool.withConnection { try Migrator.migrate(files, on: $0) }
        return database
    }

    /// The repository's SQL/migrations (or `RECEIPTQ_MIGRATIONS`).
    public static func migrationsDirectory() -> URL {
        if let path = ProcessInfo.processInfo.environment["RECEIPTQ_MIGRATIONS"] {
            return URL(fileURLWithPath: path)
        }
        // Sources/ReceiptQueueTesting/ScratchDatabase+Migrations.swift → repository root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("SQL/migrations")
    }
}
