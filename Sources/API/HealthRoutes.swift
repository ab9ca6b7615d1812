import Hummingbird
import Postgres
import ReceiptQueue

/// GET /healthz, /readyz and /metrics: no token needed (load balancers and Prometheus).
struct HealthRoutes<Context: RequestContext> {
    let pool: PostgresPool
    let migrations: [Migration]
    let metrics: APIMetrics

    struct Health: Encodable {
        var status: String
    }

    func register(on router: Router<Context>) {
        // The process is up and serving HTTP; says nothing about the database.
        router.get("healthz") { _, _ in try JSONBody.response(Health(status: "ok")) }
        // Ready to accept receipts: the database answers and has every migration this build knows.
        router.get("readyz") { _, context in
            let pending: [Migration]
            do {
                let migrations = self.migrations
                pending = try await pool.withConnection { try Migrator.pending(migrations, on: $0) }
            } catch {
                context.logger.warning("readiness check failed", metadata: ["error": "\(error)"])
                throw Problem(.databaseUnavailable, "the database cannot be reached", retryAfter: 1)
            }
            guard pending.isEmpty else {
                throw Problem(.databaseUnavailable, "\(pending.count) migrations are not applied; run receiptq migrate", retryAfter: 5)
            }
            return try JSONBody.response(Health(status: "ready"))
        }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}
