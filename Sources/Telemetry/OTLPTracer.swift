import Tracing

/// The tracer every process bootstraps when `--otlp-endpoint` is set (`InstrumentationSystem`):
/// W3C `traceparent` in and out, random ids, finished spans to an `OTLPExporter`. Code that makes
/// spans never names it — it calls swift-distributed-tracing's `startSpan` / `withSpan`, which are
/// no-ops when tracing is off.
public struct OTLPTracer: Tracer {
    public typealias Span = OTLPSpan
    private let exporter: OTLPExporter

    public init(exporter: OTLPExporter) {
        self.exporter = exporter
    }

    public func startSpan<Instant: TracerInstant>(_ operationName: String, context: @autoclosure () -> InstrumentationContext,
                                                  ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
                                                  function: String, file fileID: String, line: UInt) -> OTLPSpan {
        var context = context()
        let parent = context.traceParent
        context.traceParent = TraceParent(traceID: parent?.traceID ?? TraceParent.newTraceID(), spanID: TraceParent.newSpanID(),
                                          sampled: parent?.sampled ?? true)
        let exporter = exporter
        let sampled = context.traceParent?.sampled == true
        return OTLPSpan(name: operationName, context: context, kind: kind, parentSpanID: parent?.spanID,
                        startNanoseconds: instant().nanosecondsSinceEpoch) { record in
            if sampled { exporter.add(record) }
        }
    }

    public func forceFlush() {
        exporter.requestFlush()
    }

    public func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout InstrumentationContext,
                                                    using extractor: Extract) where Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: TraceParent.headerName, from: carrier), let parent = TraceParent(header) else { return }
        context.traceParent = parent
    }

    public func inject<Carrier, Inject: Injector>(_ context: InstrumentationContext, into carrier: inout Carrier,
                                                 using injector: Inject) where Inject.Carrier == Carrier {
        guard let parent = context.traceParent else { return }
        injector.inject(parent.description, forKey: TraceParent.headerName, into: &carrier)
    }
}
