import API
import APITesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting

/// A real API server on a free port over a scratch database, in this process, spoken to over
/// real HTTP (URLSession).
final class APIHarness: Sendable {
    static let token = "test-token-\(UUID().uuidString)"

    let database: ScratchDatabase
    let pool: PostgresPool
    let queue: JobQueue
    private let server: InProcessAPI

    var port: Int { server.port }
    var baseURL: String { server.baseURL }
    /// The admin listener: /metrics, /healthz, /readyz.
    var adminURL: String { server.adminURL }

    /// Starts a server; `configure` adjusts its settings (tokens are set to `token` first).
    /// `databaseOverride` points the server somewhere else (an unreachable database).
    static func start(configure: (inout APIConfiguration) -> Void = { _ in },
                      databaseOverride: PostgresConfiguration? = nil) async throws -> APIHarness {
        let database = try await ScratchDatabase.migrated()
        var settings = APIConfiguration(port: 0, tokens: try TokenDigests(hexList: TokenDigests.hexDigest(of: token)), poolSize: 4)
        configure(&settings)
        var logger = Logger(label: "api-test")
        logger.logLevel = .critical
        let asAPI = try await database.configuration(as: .api)   // as `receiptq api` logs in: its role only
        let server = try await InProcessAPI.start(configuration: settings, database: databaseOverride ?? asAPI,
                                                  migrations: try Migration.load(from: ScratchDatabase.migrationsDirectory()),
                                                  logger: logger)
        return APIHarness(database: database, pool: database.pool(size: 2), server: server)
    }

    private init(database: ScratchDatabase, pool: PostgresPool, server: InProcessAPI) {
        self.database = database
        self.pool = pool
        self.queue = JobQueue(pool: pool)
        self.server = server
    }

    func stop() async {
        await server.stop()
        pool.shutdown()
    }

    func count(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> Int {
        try await pool.query(sql, parameters)[0].decode("count", as: Int.self)
    }
}
