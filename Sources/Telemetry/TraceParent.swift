/// A W3C Trace Context `traceparent` (`00-<trace id>-<parent span id>-<flags>`): how one trace is
/// carried between processes — on HTTP requests, and on the job row from the API to the worker
/// (`receiptq.jobs.trace_parent`). Ids are lowercase hex; all-zero ids are invalid, as the
/// specification says, and a value that does not parse is ignored, never an error.
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// 32 lowercase hex digits.
    public var traceID: String
    /// 16 lowercase hex digits: the span the next span is a child of.
    public var spanID: String
    /// The `sampled` flag (bit 0 of the flags).
    public var sampled: Bool

    public init(traceID: String, spanID: String, sampled: Bool = true) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
    }

    /// Parses a header value; nil for anything but version `00`'s shape (or a later version's
    /// first four fields, as the specification asks of a version-00 reader).
    public init?(_ header: String) {
        let parts = header.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0].count == 2, Self.isHex(parts[0]), parts[0] != "ff" else { return nil }
        if parts[0] == "00" && parts.count != 4 { return nil }
        guard parts[1].count == 32, parts[2].count == 16, parts[3].count == 2,
              Self.isHex(parts[1]), Self.isHex(parts[2]), Self.isHex(parts[3]),
              parts[1].contains(where: { $0 != "0" }), parts[2].contains(where: { $0 != "0" }),
              let flags = UInt8(parts[3], radix: 16) else { return nil }
        self.init(traceID: String(parts[1]), spanID: String(parts[2]), sampled: flags & 1 == 1)
    }

    /// The header value, version `00`.
    public var description: String { "00-\(traceID)-\(spanID)-\(sampled ? "01" : "00")" }

    /// The header's name.
    public static let headerName = "traceparent"

    /// A new random trace id (16 bytes, never all zero).
    public static func newTraceID() -> String { randomHex(bytes: 16) }

    /// A new random span id (8 bytes, never all zero).
    public static func newSpanID() -> String { randomHex(bytes: 8) }

    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        while true {
            var text = ""
            text.reserveCapacity(bytes * 2)
            var nonZero = false
            for _ in 0..<bytes {
                let byte = UInt8.random(in: 0...255, using: &generator)
                nonZero = nonZero || byte != 0
                text.append(hexDigits[Int(byte >> 4)])
                text.append(hexDigits[Int(byte & 15)])
            }
            if nonZero { return text }
        }
    }

    private static let hexDigits = Array("0123456789abcdef")

    /// Lowercase only: the specification forbids uppercase hex in `traceparent`.
    private static func isHex(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
