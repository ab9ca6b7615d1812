import API
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import Postgres
import PostgresTesting
import ReceiptQueue
import ReceiptQueueTesting
import ServiceLifecycle

/// A real API server on a free port over a scratch database, in this process, spoken to over
/// real HTTP (URLSession).
final class APIHarness: Sendable {
    static let token = "test-token-\(UUID().uuidString)"

    let database: ScratchDatabase
    let pool: PostgresPool
    let queue: JobQueue
    let port: Int
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server; `configure` adjusts its settings (tokens are set to `token` first).
    /// `databaseOverride` points the server somewhere else (an unreachable database).
    static func start(configure: (inout APIConfiguration) -> Void = { _ in },
                      databaseOverride: PostgresConfiguration? = nil) async throws -> APIHarness {
        let database = try await ScratchDatabase.migrated()
        var settings = APIConfiguration(port: 0, tokens: try TokenDigests(hexList: TokenDigests.hexDigest(of: token)), poolSize: 4)
        configure(&settings)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "api-test")
        logger.logLevel = .critical
        let server = APIServer(configuration: settings, database: databaseOverride ?? database.configuration,
                               migrations: try Migration.load(from: ScratchDatabase.migrationsDirectory()),
                               logger: logger, onListening: { continuation.yield($0) })
        let group = ServiceGroup(services: [server], logger: logger)
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestSetupError("the API server did not start") }
        let pool = database.pool(size: 2)
        return APIHarness(database: database, pool: pool, port: port, group: group, running: running)
    }

    private init(database: ScratchDatabase, pool: PostgresPool, port: Int, group: ServiceGroup, running: Task<Void, any Error>) {
        self.database = database
        self.pool = pool
        self.queue = JobQueue(pool: pool)
        self.port = port
        self.group = group
        self.running = running
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        pool.shutdown()
    }

    func count(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) async throws -> Int {
        try await pool.query(sql, parameters)[0].decode("count", as: Int.self)
    }
}
