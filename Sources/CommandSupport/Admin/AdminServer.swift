import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// The admin listener of every process: `GET /metrics` (Prometheus text: the process's registry,
/// `ProcessMetrics` and `PoolMetrics`), `GET /healthz` (the process is up and serving) and `GET /readyz`
/// (`ReadinessProbe`; 503 with the reason when not ready). Apart from the API's public port and
/// on loopback by default (`AdminConfiguration`), so neither the metrics nor the probes are
/// exposed to the API's clients. No token: whoever reaches the port is trusted to read them.
public struct AdminServer: Service {
    public let configuration: AdminConfiguration
    public let registry: PrometheusCollectorRegistry
    public let readiness: ReadinessProbe?
    public let logger: Logger
    /// Called with the bound port once it listens (port 0 picks a free one: tests).
    public var onListening: @Sendable (Int) async -> Void
    /// Facts `/readyz` shows besides its status, e.g. the trusted roots (`TrustedRoots.readinessFacts`).
    public var facts: [String: String]

    /// - Parameter readiness: nil answers `/readyz` as `/healthz` does.
    public init(configuration: AdminConfiguration, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), readiness: ReadinessProbe?,
                logger: Logger, facts: [String: String] = [:], onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.facts = ReceiptQueueVersion.facts.merging(facts) { $1 }
        self.configuration = configuration
        self.registry = registry
        self.readiness = readiness
        self.logger = logger
        self.onListening = onListening
    }

    public func run() async throws {
        let process = ProcessMetrics(registry: registry)
        let pools = PoolMetrics(registry: registry)
        let registry = self.registry, readiness = self.readiness, facts = self.facts
        let router = Router()
        router.get("metrics") { _, _ in
            process.update()
            pools.update()
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("healthz") { _, _ in Self.json(.ok, ["status": "ok"]) }
        router.get("readyz") { _, _ in
            let answer = await readiness?.check() ?? .ready
            return answer.isReady ? Self.json(.ok, facts.merging(["status": "ready"]) { $1 })
                : Self.json(.serviceUnavailable, facts.merging(["status": "not ready", "reason": answer.reason ?? ""]) { $1 }, retryAfter: 1)
        }
        let logger = self.logger, onListening = self.onListening
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "receiptq-admin"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("admin listening (metrics, healthz, readyz)", metadata: ["host": "\(configuration.host)", "port": "\(port)"])
                await onListening(port)
            },
            logger: logger)
        try await app.run()
        await readiness?.shutdown()
    }

    private static func json(_ status: HTTPResponse.Status, _ fields: [String: String], retryAfter: Int? = nil) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
