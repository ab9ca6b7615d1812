import ArgumentParser
import Foundation
import HTTPClient
import Logging
import Telemetry
import Tracing

/// `--otlp-endpoint` (`RECEIPTQ_OTLP_ENDPOINT`): where the process sends its OpenTelemetry spans
/// (OTLP/HTTP JSON, `Telemetry`). Off unless set. `RECEIPTQ_OTLP_HEADERS` (or its `_FILE`) adds
/// headers in OpenTelemetry's `key=value,key=value` form — a hosted collector's API key; never
/// logged.
public struct TracingOptions: ParsableArguments, Sendable {
    @Option(help: "OpenTelemetry collector's OTLP/HTTP base URL (http://collector:4318): spans of requests, jobs, Apple requests and webhook deliveries go there. Default: off.")
    public var otlpEndpoint: String?

    public init() {}

    /// When an endpoint is set: bootstraps the process's tracer and returns the exporter to run
    /// beside the process's services; nil otherwise (every span is then a no-op).
    public func bootstrap(service: String, logger: Logger, environment: EnvironmentReader = EnvironmentReader()) throws -> OTLPExporter? {
        guard let endpoint = otlpEndpoint else { return nil }
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ConfigurationError("--otlp-endpoint must be an http(s) URL such as http://127.0.0.1:4318, not \"\(endpoint.prefix(60))\"")
        }
        var configuration = OTLPExporter.Configuration(endpoint: endpoint, resource: OTLPTraceExport.Resource(
            serviceName: service, serviceVersion: ReceiptQueueVersion.current,
            instanceID: "\(ProcessInfo.processInfo.hostName)-\(getpid())"))
        configuration.headers = try Self.headers(environment.secret("RECEIPTQ_OTLP_HEADERS"))
        let exporter = OTLPExporter(configuration: configuration, http: HTTPClient(configuration: HTTPClientConfiguration(
            maxTotalConnections: 2, maxIdleConnections: 2, defaultTimeout: configuration.requestTimeout)), logger: logger)
        InstrumentationSystem.bootstrap(OTLPTracer(exporter: exporter))
        return exporter
    }

    /// `key=value,key=value` (values may be percent-encoded, as OpenTelemetry's variables allow).
    static func headers(_ text: String?) throws -> [String: String] {
        guard let text, !text.isEmpty else { return [:] }
        var headers: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ConfigurationError("RECEIPTQ_OTLP_HEADERS must be key=value pairs separated by commas")
            }
            let value = String(parts[1]).trimmingCharacters(in: .whitespaces)
            headers[parts[0].trimmingCharacters(in: .whitespaces)] = value.removingPercentEncoding ?? value
        }
        return headers
    }
}
