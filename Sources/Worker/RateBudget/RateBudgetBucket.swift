import Foundation
import ReceiptQueue

/// One endpoint's budget in this process: the callers waiting for a permit, and one driver task
/// that carries out what its `RateBudgetPacer` decides (take from the store, let a caller go, or
/// sleep). The driver runs only while someone waits.
actor RateBudgetBucket<C: Clock> where C.Duration == Duration, C.Instant: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    let key: RateBudgetKey
    private let ratePerSecond: Double
    private let capacity: Double
    private let store: any RateBudgetStore
    private let clock: C
    private let maximumJitter: Duration
    private var pacer: RateBudgetPacer<C.Instant>
    private var waiters: [Waiter] = []
    private var nextID: UInt64 = 0
    private var driving = false
    private var configured = false

    init(key: RateBudgetKey, ratePerSecond: Double, capacity: Double, store: any RateBudgetStore, clock: C,
         pacing: RateBudgetPacing, maximumJitter: Duration) {
        self.key = key
        self.ratePerSecond = ratePerSecond
        self.capacity = capacity
        self.store = store
        self.clock = clock
        self.maximumJitter = maximumJitter
        self.pacer = RateBudgetPacer(configuration: pacing)
    }

    /// Returns when this caller may send one request; throws `CancellationError` if cancelled
    /// while waiting, or the store's error when the budget could not be read.
    func acquire() async throws {
        nextID &+= 1
        let id = nextID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiters.append(Waiter(id: id, continuation: continuation))
                startDriving()
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    /// Apple said 429: nothing leaves this process before `until`. (The fleet learns it through
    /// the store; see `FleetRateLimiter.pause`.)
    func pause(until: C.Instant) {
        pacer.paused(until: until)
    }

    private func cancel(_ id: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    private func startDriving() {
        guard !driving else { return }
        driving = true
        Task { await drive() }
    }

    private func drive() async {
        defer { driving = false }
        while !waiters.isEmpty {
            switch pacer.next(now: clock.now, waiting: waiters.count) {
            case .release:
                waiters.removeFirst().continuation.resume()
            case .take(let want):
                do {
                    if !configured {
                        try await store.configure(key, ratePerSecond: ratePerSecond, capacity: capacity)
                        configured = true
                    }
                    guard let grant = try await store.take(key, want: want) else {
                        configured = false
                        continue
                    }
                    let jitter = maximumJitter > .zero ? Duration.nanoseconds(Int64.random(in: 0...maximumJitter.nanosecondsValue)) : .zero
                    pacer.granted(grant.granted, ratePerSecond: grant.ratePerSecond, wait: grant.wait, jitter: jitter, now: clock.now)
                } catch {
                    pacer.takeFailed(now: clock.now)
                    let failed = waiters
                    waiters.removeAll()
                    for waiter in failed { waiter.continuation.resume(throwing: error) }
                }
            case .wait(let until):
                try? await clock.sleep(until: until, tolerance: nil)
            case .idle:
                return
            }
        }
    }
}

extension Duration {
    var nanosecondsValue: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
