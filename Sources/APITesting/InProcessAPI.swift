import API
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// An `APIServer` running in this process on a free port, for tests and the lab: the one place
/// that starts it, waits for the port and stops it gracefully.
public final class InProcessAPI: Sendable {
    /// The port it listens on (127.0.0.1 unless the configuration says otherwise).
    public let port: Int
    private let server: APIServer
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, server: APIServer, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.server = server
        self.group = group
        self.running = running
    }

    /// Starts the server (the configuration's port is replaced by 0: any free port) and returns
    /// once it listens.
    public static func start(configuration: APIConfiguration, database: PostgresConfiguration, migrations: [Migration],
                             logger: Logger) async throws -> InProcessAPI {
        var settings = configuration
        settings.port = 0
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = APIServer(configuration: settings, database: database, migrations: migrations, logger: logger,
                               onListening: { continuation.yield($0) })
        let group = ServiceGroup(services: [server], logger: logger)
        let running = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            _ = try await running.value   // it stopped before listening: its error says why
            throw APIDidNotStart()
        }
        return InProcessAPI(port: port, server: server, group: group, running: running)
    }

    /// GET /metrics as the server would answer it.
    public func metricsText() -> String { server.metricsText() }

    /// Graceful shutdown: requests in flight finish, long-polls answer at once.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }
}

public struct APIDidNotStart: Error, CustomStringConvertible {
    public var description: String { "the API server stopped before it listened" }
}
