import Tracing

/// One finished span as it is exported: what `OTLPSpan.end` hands to the exporter.
public struct SpanRecord: Sendable {
    public var name: String
    public var kind: SpanKind
    public var traceID: String
    public var spanID: String
    /// Nil for a trace's root span.
    public var parentSpanID: String?
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    public var attributes: SpanAttributes
    public var status: SpanStatus?
    public var events: [SpanEvent]

    public init(name: String, kind: SpanKind, traceID: String, spanID: String, parentSpanID: String?, startNanoseconds: UInt64,
                endNanoseconds: UInt64, attributes: SpanAttributes = [:], status: SpanStatus? = nil, events: [SpanEvent] = []) {
        self.name = name
        self.kind = kind
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.attributes = attributes
        self.status = status
        self.events = events
    }
}
