/// A window of time, relative to the fake's start, during which it behaves as if Apple were down.
public struct FakeOutage: Sendable, Equatable {
    /// How the outage shows itself.
    public enum Kind: String, Sendable, CaseIterable {
        /// The listening socket is closed (new connections are refused) and requests arriving on
        /// connections opened before are answered by closing the connection without a response.
        case refused
        /// HTTP 503 with a short HTML body, answered at once.
        case serviceUnavailable = "503"
        /// HTTP 200 with an HTML maintenance page (seen from Apple during a multi-hour outage).
        case html200
        /// Status 21002 for every receipt, after the usual latency (a "malformed or temporary"
        /// storm: one lasted about a day in February 2023).
        case malformed21002 = "21002"
    }

    public var start: Duration
    public var end: Duration
    public var kind: Kind

    public init(start: Duration, end: Duration, kind: Kind = .refused) {
        self.start = start
        self.end = end
        self.kind = kind
    }

    public func contains(_ elapsed: Duration) -> Bool {
        elapsed >= start && elapsed < end
    }

    /// Parses `30s-90s`, `30s-90s:503`, `1m-2m:html200`, `10s-70s:21002`, `500ms-2s:refused` (kind
    /// defaults to refused).
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let range = FakeDurationRange(parsing: parts[0]) else { return nil }
        var kind = Kind.refused
        if parts.count == 2 {
            guard let parsed = Kind(rawValue: parts[1]) else { return nil }
            kind = parsed
        }
        guard range.upper > range.lower else { return nil }
        self.init(start: range.lower, end: range.upper, kind: kind)
    }
}

/// `lower-upper` durations such as `3s-6s`, `250ms-1s`, `0s` (a single value means both).
public struct FakeDurationRange: Sendable, Equatable {
    public var lower: Duration
    public var upper: Duration

    public init(lower: Duration, upper: Duration) {
        self.lower = lower
        self.upper = max(lower, upper)
    }

    public init?(parsing text: String) {
        let parts = text.split(separator: "-").map(String.init)
        guard parts.count == 1 || parts.count == 2,
              let lower = Self.duration(parts[0]),
              let upper = Self.duration(parts.count == 2 ? parts[1] : parts[0]),
              upper >= lower else { return nil }
        self.init(lower: lower, upper: upper)
    }

    /// `250ms`, `3s`, `1.5s`, `2m`; a bare number is seconds.
    static func duration(_ text: String) -> Duration? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        for (suffix, seconds) in units where text.hasSuffix(suffix) {
            guard let value = Double(text.dropLast(suffix.count)), value >= 0 else { return nil }
            return .milliseconds(Int64((value * seconds * 1_000).rounded()))
        }
        guard let value = Double(text), value >= 0 else { return nil }
        return .milliseconds(Int64((value * 1_000).rounded()))
    }
}
