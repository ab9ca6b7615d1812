import Foundation
import Tracing

/// The body of an OTLP/HTTP JSON export (`POST /v1/traces`, an `ExportTraceServiceRequest` in
/// protobuf's JSON mapping): one resource (the process), one scope, the spans. Ids are hex, as
/// OTLP's JSON encoding asks (not base64); 64-bit integers are strings.
public enum OTLPTraceExport {
    /// The process that made the spans.
    public struct Resource: Sendable {
        public var serviceName: String
        public var serviceVersion: String
        public var instanceID: String

        public init(serviceName: String, serviceVersion: String, instanceID: String) {
            self.serviceName = serviceName
            self.serviceVersion = serviceVersion
            self.instanceID = instanceID
        }
    }

    public static func body(_ spans: [SpanRecord], resource: Resource) -> [UInt8] {
        let object: [String: Any] = [
            "resourceSpans": [[
                "resource": ["attributes": [
                    keyValue("service.name", .string(resource.serviceName)),
                    keyValue("service.version", .string(resource.serviceVersion)),
                    keyValue("service.instance.id", .string(resource.instanceID)),
                ]],
                "scopeSpans": [[
                    "scope": ["name": "receiptq", "version": resource.serviceVersion],
                    "spans": spans.map(span),
                ]],
            ]],
        ]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8))
    }

    static func span(_ record: SpanRecord) -> [String: Any] {
        var span: [String: Any] = [
            "traceId": record.traceID, "spanId": record.spanID, "name": record.name, "kind": kind(record.kind),
            "startTimeUnixNano": String(record.startNanoseconds), "endTimeUnixNano": String(record.endNanoseconds),
        ]
        if let parent = record.parentSpanID { span["parentSpanId"] = parent }
        var attributes: [[String: Any]] = []
        record.attributes.forEach { key, value in
            if let value = anyValue(value) { attributes.append(["key": key, "value": value]) }
        }
        span["attributes"] = attributes.sorted { ($0["key"] as? String ?? "") < ($1["key"] as? String ?? "") }
        if let status = record.status {
            var body: [String: Any] = ["code": status.code == .ok ? 1 : 2]
            if let message = status.message { body["message"] = message }
            span["status"] = body
        }
        if !record.events.isEmpty {
            span["events"] = record.events.map { event -> [String: Any] in
                var attributes: [[String: Any]] = []
                event.attributes.forEach { key, value in
                    if let value = anyValue(value) { attributes.append(["key": key, "value": value]) }
                }
                return ["name": event.name, "timeUnixNano": String(event.nanosecondsSinceEpoch), "attributes": attributes]
            }
        }
        return span
    }

    /// OTLP's `Span.SpanKind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
    static func kind(_ kind: SpanKind) -> Int {
        switch kind {
        case .internal: 1
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        }
    }

    static func keyValue(_ key: String, _ value: SpanAttribute) -> [String: Any] {
        ["key": key, "value": anyValue(value) ?? ["stringValue": ""]]
    }

    static func anyValue(_ attribute: SpanAttribute) -> [String: Any]? {
        switch attribute {
        case .int32(let value): ["intValue": String(value)]
        case .int64(let value): ["intValue": String(value)]
        case .double(let value): value.isFinite ? ["doubleValue": value] : ["stringValue": String(value)]
        case .bool(let value): ["boolValue": value]
        case .string(let value): ["stringValue": value]
        case .stringConvertible(let value): ["stringValue": String(describing: value)]
        case .int32Array(let values): ["arrayValue": ["values": values.map { ["intValue": String($0)] }]]
        case .int64Array(let values): ["arrayValue": ["values": values.map { ["intValue": String($0)] }]]
        case .doubleArray(let values): ["arrayValue": ["values": values.map { ["doubleValue": $0] }]]
        case .boolArray(let values): ["arrayValue": ["values": values.map { ["boolValue": $0] }]]
        case .stringArray(let values): ["arrayValue": ["values": values.map { ["stringValue": $0] }]]
        case .stringConvertibleArray(let values): ["arrayValue": ["values": values.map { ["stringValue": String(describing: $0)] }]]
        default: nil
        }
    }
}
