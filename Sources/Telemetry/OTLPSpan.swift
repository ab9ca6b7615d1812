import Synchronization
import Tracing

/// A span of `OTLPTracer`: mutable until `end`, then handed to the exporter once.
public final class OTLPSpan: Span {
    public let context: InstrumentationContext
    private let kind: SpanKind
    private let parentSpanID: String?
    private let startNanoseconds: UInt64
    private let onEnd: @Sendable (SpanRecord) -> Void

    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var ended = false
    }

    private let state: Mutex<State>

    init(name: String, context: InstrumentationContext, kind: SpanKind, parentSpanID: String?, startNanoseconds: UInt64,
         onEnd: @escaping @Sendable (SpanRecord) -> Void) {
        self.context = context
        self.kind = kind
        self.parentSpanID = parentSpanID
        self.startNanoseconds = startNanoseconds
        self.onEnd = onEnd
        state = Mutex(State(name: name))
    }

    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    public var isRecording: Bool { state.withLock { !$0.ended } }

    public func setStatus(_ status: SpanStatus) {
        state.withLock { $0.status = status }
    }

    public func addEvent(_ event: SpanEvent) {
        state.withLock { if $0.events.count < 32 { $0.events.append(event) } }
    }

    /// Records the error's type only: an error's description may quote what it was given, and
    /// a trace must never carry a receipt, a signed payload or a secret.
    public func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        var attributes = attributes
        attributes["exception.type"] = String(describing: type(of: error))
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: attributes))
    }

    /// Links are not exported.
    public func addLink(_ link: SpanLink) {}

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let end = instant().nanosecondsSinceEpoch
        let record: SpanRecord? = state.withLock { state in
            guard !state.ended, let traceParent = context.traceParent else { return nil }
            state.ended = true
            return SpanRecord(name: state.name, kind: kind, traceID: traceParent.traceID, spanID: traceParent.spanID,
                              parentSpanID: parentSpanID, startNanoseconds: startNanoseconds, endNanoseconds: max(end, startNanoseconds),
                              attributes: state.attributes, status: state.status, events: state.events)
        }
        if let record { onEnd(record) }
    }
}
