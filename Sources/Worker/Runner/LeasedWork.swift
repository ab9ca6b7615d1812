import Postgres

/// One leased queue's work, as `QueueRunner` runs it: how to claim, and how to carry out one lease
/// (recording how it ended, through that queue's fenced statement). The runner owns the rest —
/// wake-ups, polling, backing off a failed claim, stopping within the shutdown deadline.
protocol LeasedWork: Sendable {
    associatedtype Lease: Sendable
    /// What the logs call this work ("notifications", "webhook deliveries").
    var label: String { get }
    /// Claims at most `limit` leases; throws when the database fails (the runner backs off 1 s).
    func claim(limit: Int) async throws -> [Lease]
    /// Carries out one lease and records its end; never throws. Cancelled past the shutdown
    /// deadline, it records a release (or leaves the row to its lease).
    func perform(_ lease: Lease) async
    /// Of `free` slots, how many may be claimed now (a circuit breaker's admission). Default: all.
    func admit(_ free: Int) -> Int
    /// A claim for `wanted` came back with `count` (0 when it failed): the admission not used
    /// goes back. Default: nothing.
    func claimed(_ count: Int, of wanted: Int)
    /// A NOTIFY on one of the runner's channels (`.listening` after a reconnect). Default: nothing
    /// (the runner wakes up anyway).
    func heard(_ event: PostgresListenerEvent)
}

extension LeasedWork {
    func admit(_ free: Int) -> Int { free }
    func claimed(_ count: Int, of wanted: Int) {}
    func heard(_ event: PostgresListenerEvent) {}
}
