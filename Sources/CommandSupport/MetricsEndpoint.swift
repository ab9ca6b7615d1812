import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// Serves `GET /metrics` (Prometheus text format) for processes without an HTTP API of their
/// own — the worker. Everything recorded through swift-metrics in the process appears there.
public enum MetricsEndpoint {
    /// Routes swift-metrics into a Prometheus registry (once per process) and returns the
    /// service that serves it on `host:port`.
    public static func bootstrap(host: String, port: Int, logger: Logger) -> any Service {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let router = Router()
        router.get("metrics") { _, _ in
            var buffer = [UInt8]()
            registry.emit(into: &buffer)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        router.get("healthz") { _, _ in "ok" }
        return Application(router: router, configuration: .init(address: .hostname(host, port: port)), logger: logger)
    }
}
