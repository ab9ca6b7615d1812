import Logging
import Tracing

/// `trace_id` and `span_id` on every log line written inside a span (swift-log's metadata
/// provider reads the task's `InstrumentationContext`): a log line and its trace find each other.
public enum TraceLogMetadata {
    public static let provider = Logger.MetadataProvider {
        guard let parent = InstrumentationContext.current?.traceParent else { return [:] }
        return ["trace_id": .string(parent.traceID), "span_id": .string(parent.spanID)]
    }
}
