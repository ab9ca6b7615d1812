import API
import CommandSupport
import Logging
import Postgres
import ReceiptQueue
import ServiceLifecycle

/// An `APIServer` running in this process on a free port, with its admin listener (`/metrics`,
/// `/healthz`, `/readyz`) on another, for tests and the lab: the one place that starts them,
/// waits for both ports and stops them gracefully.
public final class InProcessAPI: Sendable {
    /// The public port (127.0.0.1 unless the configuration says otherwise).
    public let port: Int
    /// The admin listener's port, on 127.0.0.1.
    public let adminPort: Int
    private let server: APIServer
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var adminURL: String { "http://127.0.0.1:\(adminPort)" }

    private init(port: Int, adminPort: Int, server: APIServer, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.adminPort = adminPort
        self.server = server
        self.group = group
        self.running = running
    }

    /// Starts the server and its admin listener (the configuration's port is replaced by 0: any
    /// free port) and returns once both listen. `migrations` are what `/readyz` expects applied.
    /// `port` 0: any free one (tests that must know it first, e.g. to register it as Apple's
    /// notification URL, pick one with `FreePort`).
    public static func start(configuration: APIConfiguration, database: PostgresConfiguration, migrations: [Migration],
                             logger: Logger, port: Int = 0) async throws -> InProcessAPI {
        var settings = configuration
        settings.port = port
        let (ports, continuation) = AsyncStream.makeStream(of: (String, Int).self)
        let server = APIServer(configuration: settings, database: database, logger: logger,
                               onListening: { continuation.yield(("api", $0)) })
        let admin = AdminServer(configuration: AdminConfiguration(port: 0), registry: server.registry,
                                readiness: ReadinessProbe(database: database, migrations: migrations, logger: logger), logger: logger,
                                onListening: { continuation.yield(("admin", $0)) })
        let group = ServiceGroup(services: [server, admin], logger: logger)
        let running = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var found: [String: Int] = [:]
        for await (name, port) in ports {
            found[name] = port
            if found.count == 2 { break }
        }
        guard let port = found["api"], let adminPort = found["admin"] else {
            _ = try await running.value   // it stopped before listening: its error says why
            throw APIDidNotStart()
        }
        return InProcessAPI(port: port, adminPort: adminPort, server: server, group: group, running: running)
    }

    /// The API's metrics as the admin listener's GET /metrics serves them (without the process's).
    public func metricsText() -> String { server.registry.emitToString() }

    /// Graceful shutdown: requests in flight finish, long-polls answer at once.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }
}

public struct APIDidNotStart: Error, CustomStringConvertible {
    public var description: String { "the API server stopped before it listened" }
}
