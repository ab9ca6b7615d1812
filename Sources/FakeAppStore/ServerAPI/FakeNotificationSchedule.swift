/// When the fake tries a notification again, as Apple documents for version 2 notifications: five
/// retries, at 1, 12, 24, 48 and 72 hours after the previous attempt, production only (the
/// sandbox sends once). `compression` divides the delays so tests and demos need not wait days.
public enum FakeNotificationSchedule {
    public static let retryDelays: [Duration] = [1, 12, 24, 48, 72].map { Duration.seconds($0 * 3_600) }

    /// The wait before the next attempt after `attemptsMade` failed ones, or `nil` when the fake
    /// gives up.
    public static func delay(afterAttempts attemptsMade: Int, environment: FakeEnvironment, compression: Double,
                             retrySandbox: Bool = false) -> Duration? {
        guard attemptsMade >= 1, attemptsMade <= retryDelays.count else { return nil }
        guard environment == .production || retrySandbox else { return nil }
        let factor = max(1, compression)
        let nanoseconds = Double(retryDelays[attemptsMade - 1].components.seconds) * 1e9 / factor
        return .nanoseconds(Int64(nanoseconds.rounded()))
    }
}
