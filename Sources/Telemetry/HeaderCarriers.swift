import Tracing

/// `traceparent` in and out of a plain header dictionary (the libcurl engine's request headers,
/// a row's stored value).
public struct DictionaryInjector: Injector {
    public init() {}
    public func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

public struct DictionaryExtractor: Extractor {
    public init() {}
    public func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key] ?? carrier.first { $0.key.lowercased() == key.lowercased() }?.value
    }
}

extension InstrumentationContext {
    /// Adds this context's `traceparent` to outgoing request headers (nothing when tracing is off).
    public func injectTraceParent(into headers: inout [String: String]) {
        InstrumentationSystem.instrument.inject(self, into: &headers, using: DictionaryInjector())
    }

    /// The `traceparent` to store on a row for the next process to continue: this context's,
    /// nil outside a trace.
    public var storedTraceParent: String? {
        var headers: [String: String] = [:]
        injectTraceParent(into: &headers)
        return headers[TraceParent.headerName]
    }
}
