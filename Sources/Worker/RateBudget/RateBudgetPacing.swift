/// How a process takes and lets out its share of a budget (`RateBudgetPacer`). Every parameter has
/// a default.
public struct RateBudgetPacing: Sendable, Equatable {
    /// A take asks for at most this much time's worth of tokens. Default: 100 ms (5 tokens at 50/s).
    public var batchWindow: Duration
    /// Tokens held longer than this are dropped. Default: 250 ms.
    public var holdLimit: Duration
    /// The shortest wait between a take that got less than asked and the next. Default: 2 ms.
    public var minimumTakeInterval: Duration
    /// How long to wait after a take failed (database unreachable). Default: 1 s.
    public var errorBackoff: Duration

    public init(batchWindow: Duration = .milliseconds(100), holdLimit: Duration = .milliseconds(250),
                minimumTakeInterval: Duration = .milliseconds(2), errorBackoff: Duration = .seconds(1)) {
        self.batchWindow = batchWindow
        self.holdLimit = holdLimit
        self.minimumTakeInterval = minimumTakeInterval
        self.errorBackoff = errorBackoff
    }
}

