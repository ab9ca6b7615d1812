import Tracing

/// Where a span's identity lives in an `InstrumentationContext`: its trace id and its own span id
/// (a remote parent's, after `extract`). Code that only has a context reads it through `traceParent`.
enum TraceContextKey: InstrumentationContextKey {
    typealias Value = TraceParent
    static let nameOverride: String? = "trace-parent"
}

extension InstrumentationContext {
    /// The trace this context belongs to and the span a child would hang under; nil outside any
    /// trace (or when tracing is off).
    public var traceParent: TraceParent? {
        get { self[TraceContextKey.self] }
        set { self[TraceContextKey.self] = newValue }
    }

    /// A context whose parent is `traceParent` as stored on a row (a job's, an event's); the top
    /// level when there is none or it does not parse.
    public static func continuing(_ traceParent: String?) -> InstrumentationContext {
        var context = InstrumentationContext.topLevel
        context.traceParent = traceParent.flatMap(TraceParent.init)
        return context
    }
}
