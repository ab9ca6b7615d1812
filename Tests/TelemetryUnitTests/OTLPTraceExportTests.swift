import Foundation
import Telemetry
import Testing
import Tracing

/// The export body in OTLP's JSON mapping: what a collector parses (the test command also checks
/// it with opentelemetry-proto's own parser, Deploy/conformance/otlp_receiver.py).
@Suite struct OTLPTraceExportTests {
    let resource = OTLPTraceExport.Resource(serviceName: "receiptq-worker", serviceVersion: "0.11.0", instanceID: "host-1")

    func decoded(_ spans: [SpanRecord]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(OTLPTraceExport.body(spans, resource: resource))) as? [String: Any])
    }

    @Test func aSpanIsEncodedWithHexIdsStringNanosAndTypedAttributes() throws {
        var attributes = SpanAttributes()
        attributes["apple.environment"] = "Sandbox"
        attributes["apple.status"] = 0
        attributes["receiptq.created"] = true
        let record = SpanRecord(name: "apple.verifyReceipt", kind: .client, traceID: "4bf92f3577b34da6a3ce929d0e0e4736",
                                spanID: "00f067aa0ba902b7", parentSpanID: "1111111111111111", startNanoseconds: 1_700_000_000_000_000_000,
                                endNanoseconds: 1_700_000_003_500_000_000, attributes: attributes, status: SpanStatus(code: .error))
        let body = try decoded([record])
        let resourceSpans = try #require((body["resourceSpans"] as? [[String: Any]])?.first)
        let resourceAttributes = try #require((resourceSpans["resource"] as? [String: Any])?["attributes"] as? [[String: Any]])
        #expect(resourceAttributes.contains { ($0["key"] as? String) == "service.name"
            && (($0["value"] as? [String: Any])?["stringValue"] as? String) == "receiptq-worker" })
        let span = try #require(((resourceSpans["scopeSpans"] as? [[String: Any]])?.first?["spans"] as? [[String: Any]])?.first)
        #expect(span["traceId"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(span["spanId"] as? String == "00f067aa0ba902b7")
        #expect(span["parentSpanId"] as? String == "1111111111111111")
        #expect(span["kind"] as? Int == 3)
        #expect(span["startTimeUnixNano"] as? String == "1700000000000000000")
        #expect(span["endTimeUnixNano"] as? String == "1700000003500000000")
        #expect((span["status"] as? [String: Any])?["code"] as? Int == 2)
        let values = Dictionary(uniqueKeysWithValues: try #require(span["attributes"] as? [[String: Any]]).map {
            ($0["key"] as! String, $0["value"] as! [String: Any])
        })
        #expect(values["apple.environment"]?["stringValue"] as? String == "Sandbox")
        #expect(values["apple.status"]?["intValue"] as? String == "0")
        #expect(values["receiptq.created"]?["boolValue"] as? Bool == true)
    }

    @Test func aRootSpanHasNoParentField() throws {
        let record = SpanRecord(name: "POST /v1/receipts", kind: .server, traceID: "4bf92f3577b34da6a3ce929d0e0e4736",
                                spanID: "00f067aa0ba902b7", parentSpanID: nil, startNanoseconds: 1, endNanoseconds: 2)
        let span = try #require(((((try decoded([record]))["resourceSpans"] as? [[String: Any]])?.first?["scopeSpans"] as? [[String: Any]])?
            .first?["spans"] as? [[String: Any]])?.first)
        #expect(span["parentSpanId"] == nil)
        #expect(span["kind"] as? Int == 2)
    }

    @Test func theTracesURLIsTheEndpointsV1Traces() {
        func url(_ endpoint: String) -> String { OTLPExporter.Configuration(endpoint: endpoint, resource: resource).tracesURL }
        #expect(url("http://collector:4318") == "http://collector:4318/v1/traces")
        #expect(url("http://collector:4318/") == "http://collector:4318/v1/traces")
        #expect(url("https://otlp.example.com/v1/traces") == "https://otlp.example.com/v1/traces")
    }
}
