import Hummingbird
import Logging
import ReceiptQueue
import ServiceLifecycle

/// The support listener: the admin API (`/support/v1`, bearer tokens) and the console
/// (`/console`, HTTP Basic with the same credentials, CSRF-protected forms), both over
/// `SupportOperations`. A service of `receiptq support serve`, never of the API or the workers.
public struct SupportServer: Service {
    public let configuration: SupportServerConfiguration
    public let operations: SupportOperations
    public let logger: Logger
    public var onListening: @Sendable (Int) async -> Void
    /// The failed-login limiter's clock (tests freeze it).
    let authClock: @Sendable () -> ContinuousClock.Instant

    public init(configuration: SupportServerConfiguration, operations: SupportOperations, logger: Logger,
                authClock: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
                onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.configuration = configuration
        self.operations = operations
        self.logger = logger
        self.authClock = authClock
        self.onListening = onListening
    }

    public func run() async throws {
        let router = Router()
        let failures = AuthFailureLimiter(failuresPerMinute: configuration.authFailuresPerMinute, clock: authClock)
        SupportAPIRoutes(operations: operations, credentials: configuration.credentials, failures: failures).register(on: router)
        if configuration.console {
            ConsoleRoutes(operations: operations, credentials: configuration.credentials, failures: failures).register(on: router)
        }
        router.get("healthz") { _, _ in SupportHTTP.json("{\"status\": \"ok\"}") }
        let logger = self.logger, onListening = self.onListening, console = configuration.console
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "receiptq-support"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("support listening", metadata: ["port": "\(port)", "console": "\(console ? "/console" : "off")"])
                await onListening(port)
            },
            logger: logger)
        try await app.run()
    }
}
