/// What every connection of one fake server shares: its configuration, its stats and its start
/// time (outage windows are relative to it).
struct FakeAppStoreCore: Sendable {
    let configuration: FakeAppStoreConfiguration
    let stats: FakeAppStoreStats
    let startedAt: ContinuousClock.Instant

    var elapsed: Duration {
        ContinuousClock.now - startedAt
    }
}
