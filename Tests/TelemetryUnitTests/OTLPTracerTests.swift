import Foundation
import HTTPClient
import Logging
@testable import Telemetry
import Testing
import Tracing

/// The tracer: spans continue the trace they are given, and a finished span reaches the
/// exporter once, with its parent, times and attributes.
@Suite struct OTLPTracerTests {
    let exporter = OTLPExporter(
        configuration: OTLPExporter.Configuration(endpoint: "http://127.0.0.1:1",
                                                  resource: .init(serviceName: "test", serviceVersion: "0", instanceID: "here")),
        http: HTTPClient(), logger: Logger(label: "test"))
    var tracer: OTLPTracer { OTLPTracer(exporter: exporter) }

    @Test func aSpanWithoutAParentStartsATrace() throws {
        let span = tracer.startSpan("root", context: .topLevel, ofKind: .server, at: WallClockInstant(nanosecondsSinceEpoch: 1_000),
                                    function: #function, file: #fileID, line: #line)
        span.attributes["http.response.status_code"] = 202
        span.end(at: WallClockInstant(nanosecondsSinceEpoch: 5_000))
        let record = try #require(exporter.buffered.first)
        #expect(exporter.buffered.count == 1)
        #expect(record.name == "root" && record.parentSpanID == nil)
        #expect(record.traceID == span.context.traceParent?.traceID && record.spanID == span.context.traceParent?.spanID)
        #expect(record.startNanoseconds == 1_000 && record.endNanoseconds == 5_000)
        #expect(record.attributes.get("http.response.status_code") == .int64(202))
    }

    @Test func aStoredTraceParentIsContinued() throws {
        let stored = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let span = tracer.startSpan("receiptq.claim", context: .continuing(stored), ofKind: .consumer, at: DefaultTracerClock.now,
                                    function: #function, file: #fileID, line: #line)
        span.end()
        let record = try #require(exporter.buffered.first)
        #expect(record.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(record.parentSpanID == "00f067aa0ba902b7")
        #expect(record.spanID != "00f067aa0ba902b7")
    }

    @Test func aHeaderIsExtractedAndInjected() throws {
        var context = InstrumentationContext.topLevel
        tracer.extract(["TraceParent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"], into: &context, using: DictionaryExtractor())
        #expect(context.traceParent?.spanID == "00f067aa0ba902b7")
        let child = tracer.startSpan("webhook.deliver", context: context, ofKind: .client, at: DefaultTracerClock.now,
                                     function: #function, file: #fileID, line: #line)
        var headers: [String: String] = [:]
        tracer.inject(child.context, into: &headers, using: DictionaryInjector())
        let sent = try #require(headers["traceparent"].flatMap(TraceParent.init))
        #expect(sent.traceID == "4bf92f3577b34da6a3ce929d0e0e4736" && sent.spanID == child.context.traceParent?.spanID)
    }

    @Test func aSpanEndedTwiceIsExportedOnce() {
        let span = tracer.startSpan("twice", context: .topLevel, ofKind: .internal, at: DefaultTracerClock.now,
                                    function: #function, file: #fileID, line: #line)
        span.end()
        span.end()
        #expect(exporter.buffered.count == 1)
        #expect(!span.isRecording)
    }

    @Test func anUnsampledTraceIsNotExported() {
        let span = tracer.startSpan("quiet", context: .continuing("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"),
                                    ofKind: .internal, at: DefaultTracerClock.now, function: #function, file: #fileID, line: #line)
        span.end()
        #expect(exporter.buffered.isEmpty)
    }

    @Test func anErrorIsRecordedByItsTypeNeverItsText() throws {
        struct ReceiptRefused: Error, CustomStringConvertible { var description: String { "MIIT…secret receipt bytes" } }
        let span = tracer.startSpan("failing", context: .topLevel, ofKind: .internal, at: DefaultTracerClock.now,
                                    function: #function, file: #fileID, line: #line)
        span.recordError(ReceiptRefused())
        span.end()
        let event = try #require(exporter.buffered.first?.events.first)
        #expect(event.name == "exception")
        #expect(event.attributes.get("exception.type") == .string("ReceiptRefused"))
        #expect(!String(decoding: OTLPTraceExport.body(exporter.buffered, resource: exporter.configuration.resource), as: UTF8.self)
            .contains("secret"))
    }

    @Test func aFullBufferDropsItsOldestSpans() {
        var configuration = exporter.configuration
        configuration.capacity = 3
        let small = OTLPExporter(configuration: configuration, http: HTTPClient(), logger: Logger(label: "test"))
        let tracer = OTLPTracer(exporter: small)
        for index in 0..<5 {
            tracer.startSpan("span \(index)", context: .topLevel, ofKind: .internal, at: DefaultTracerClock.now,
                             function: #function, file: #fileID, line: #line).end()
        }
        #expect(small.buffered.map(\.name) == ["span 2", "span 3", "span 4"])
        #expect(small.counts.dropped == 2)
    }

    @Test func aCollectorThatIsDownCostsTheBatchNotAHang() async {
        tracer.startSpan("lost", context: .topLevel, ofKind: .internal, at: DefaultTracerClock.now,
                         function: #function, file: #fileID, line: #line).end()
        let started = ContinuousClock.now
        await exporter.flush(timeout: .seconds(2))   // port 1: refused at once
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(exporter.buffered.isEmpty)
        #expect(exporter.counts.dropped == 1 && exporter.counts.failedRequests == 1 && exporter.counts.sent == 0)
    }

    @Test func theLogMetadataIsTheActiveSpansTraceID() throws {
        let span = tracer.startSpan("logged", context: .topLevel, ofKind: .internal, at: DefaultTracerClock.now,
                                    function: #function, file: #fileID, line: #line)
        let metadata = InstrumentationContext.$current.withValue(span.context) { TraceLogMetadata.provider.get() }
        #expect(metadata["trace_id"] == .string(try #require(span.context.traceParent?.traceID)))
        #expect(TraceLogMetadata.provider.get().isEmpty)
    }
}
