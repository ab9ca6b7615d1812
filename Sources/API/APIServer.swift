import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Postgres
import Prometheus
import ReceiptQueue
import ServiceLifecycle

/// The HTTP API front as one service: a database pool (libpq on threads of its own, never on
/// the cooperative pool or NIO event loops), the group committer, the results listener and the
/// Hummingbird server. Graceful shutdown stops accepting, lets requests in flight finish
/// (long-polls answer at once), then closes the pool.
///
/// Only the `/v1` routes are served here, on the public port: metrics, liveness and readiness
/// are the admin listener's (`AdminServer`, loopback by default), which reads `registry`.
public struct APIServer: Service {
    public let configuration: APIConfiguration
    public let database: PostgresConfiguration
    public let registry: PrometheusCollectorRegistry
    public let logger: Logger
    /// Called with the bound port once the server listens (port 0 picks a free one).
    public var onListening: @Sendable (Int) async -> Void

    public init(configuration: APIConfiguration, database: PostgresConfiguration,
                registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                logger: Logger = Logger(label: "receiptq.api"), onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.configuration = configuration
        self.database = database
        self.registry = registry
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let pool = PostgresPool(configuration: database, size: configuration.poolSize, name: "api", logger: logger)
        defer { pool.shutdown() }
        let metrics = APIMetrics(registry: registry)
        let waiters = ResultWaiters()
        let queue = JobQueue(pool: pool)
        let groupCommit = GroupCommit(queue: queue, configuration: configuration.groupCommit, metrics: metrics)

        let router = Router(context: APIRequestContext.self)
        // Outermost when tracing: the access log line and everything inside carry the span's trace id.
        if configuration.tracing { router.middlewares.add(RequestSpanMiddleware()) }
        router.middlewares.add(AccessLogMiddleware(metrics: metrics, logger: logger))
        router.middlewares.add(ProblemMiddleware())
        let v1 = router.group("v1")
            .add(middleware: BearerAuthMiddleware(tokens: configuration.tokens,
                                                  limiter: RateLimiter(ratePerSecond: configuration.rateLimitPerSecond,
                                                                       burst: configuration.rateLimitBurst),
                                                  failures: AuthFailureLimiter(failuresPerMinute: configuration.authFailuresPerMinute),
                                                  metrics: metrics))
        ReceiptRoutes(configuration: configuration, queue: queue, groupCommit: groupCommit, waiters: waiters,
                      longPolls: LongPollBudget(perToken: configuration.maxLongPollsPerToken, total: configuration.maxLongPolls),
                      metrics: metrics)
            .register(on: v1)
        OrderRoutes(configuration: configuration, pool: pool).register(on: v1)
        EntitlementRoutes(pool: pool, billingRetryAccess: configuration.billingRetryAccess).register(on: v1)
        SubscriptionRoutes(pool: pool).register(on: v1)
        HistorySyncRoutes(pool: pool).register(on: v1)
        ConsentRoutes(configuration: configuration, pool: pool).register(on: v1)
        OfferSignatureRoutes(signing: configuration.offerSigning, pool: pool).register(on: v1)
        AppTransactionRoutes(configuration: configuration, pool: pool).register(on: v1)
        EventRoutes(pool: pool).register(on: v1)
        TransactionRoutes(configuration: configuration, groupCommit: groupCommit, metrics: metrics).register(on: v1)
        // Apple's notifications: outside the bearer-token group (the signature authenticates them).
        let notificationCommit = GroupCommit<NewNotification, Bool>(
            configuration: configuration.groupCommit, committed: { metrics.committedBatch(size: $0) },
            insert: { notifications in try await pool.withConnection { try EnqueueNotifications.run(notifications, on: $0) } })
        NotificationRoutes(configuration: configuration, groupCommit: notificationCommit, metrics: metrics).register(on: router)
        // The API's own description: outside the bearer-token group too (public, no data).
        OpenAPIRoutes().register(on: router)

        let listener = ResultListener(database: database, waiters: waiters, logger: logger)
        let logger = self.logger
        let onListening = self.onListening
        let app = Application(
            router: router,
            server: .http1(configuration: HTTP1Channel.Configuration(idleTimeout: TimeAmount.milliseconds(
                configuration.idleTimeout.components.seconds * 1_000 + configuration.idleTimeout.components.attoseconds / 1_000_000_000_000_000))),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: "receiptq", backlog: 1024),
            services: [listener],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("api listening", metadata: ["port": "\(port)"])
                await onListening(port)
            },
            logger: logger)
        // Long-polls answer at once when shutdown begins. The listener (whose shutdown also closes
        // the waiters) is stopped by the application only after the server has drained, and the
        // server waited for every long-poll to run out its full wait first.
        try await withGracefulShutdownHandler {
            try await app.run()
        } onGracefulShutdown: {
            waiters.close()
        }
    }
}
