/// When a notification that could not be applied for our own reasons (the database, a lost
/// connection) is tried again, and when it is given up as `failed` (kept, visible in
/// `receiptq.notification_health`, re-drivable). Pure.
public struct NotificationRetryPolicy: Sendable, Hashable {
    /// First retry after this; doubling. Default 5 s.
    public var initialDelay: Duration
    /// Default 1 h.
    public var maxDelay: Duration
    /// Attempts before `failed`. Default 30 (about a day at the cap).
    public var maxAttempts: Int

    public init(initialDelay: Duration = .seconds(5), maxDelay: Duration = .seconds(3600), maxAttempts: Int = 30) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
    }

    /// The delay before the next attempt after `attempt` (1-based) failed, or nil: give up.
    public func delay(after attempt: Int) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        var delay = initialDelay
        for _ in 1..<max(1, attempt) where delay < maxDelay { delay *= 2 }
        return min(delay, maxDelay)
    }
}
