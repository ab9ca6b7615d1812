import Logging
import Postgres
import ServiceLifecycle
import Synchronization

/// The one claim → perform → record loop that every leased queue's worker runs (notifications,
/// consumption requests, signed transactions, App Store Server API lookups, webhook deliveries):
/// claim what the capacity (and `LeasedWork.admit`) allows, carry each lease out, wake on NOTIFY or
/// a freed slot, poll as a fallback, back off 1 s when a claim fails; on graceful shutdown stop
/// claiming, give the work in flight `shutdownDeadline`, then cancel it (each lease then records a
/// release or is left to its lease) and return once nothing is in flight.
///
/// Two ways to take work, by `Refill`:
/// - `.whenDrained`: claim a batch, carry it out `concurrency` at a time, claim again once all of
///   it ended (a claim of notifications holds one per purchase, so a batch never collides);
/// - `.whenSlotFree`: up to `capacity` in flight, claiming again whenever one ends (calls that
///   wait on someone else's server for seconds).
final class QueueRunner<Work: LeasedWork>: Sendable {
    enum Refill: Sendable, Equatable {
        case whenDrained
        case whenSlotFree
    }

    struct Configuration: Sendable {
        /// Most leases per claim.
        var batch: Int
        /// Leases held at most (claimed, not yet ended).
        var capacity: Int
        /// Leases carried out at once (`.whenDrained`; `.whenSlotFree` runs every held lease at once).
        var concurrency: Int
        var refill: Refill
        /// The polling fallback when a NOTIFY was lost.
        var pollInterval: Duration
        /// On graceful shutdown, how long work in flight may go on before it is cancelled.
        var shutdownDeadline: Duration
        /// NOTIFY channels that wake the runner (none: it only polls).
        var channels: [String]

        /// `slots` in flight, one claimed whenever one ends, found by polling alone: the shape of
        /// work that waits on Apple's Server API for each lease (history walks, status checks).
        static func polling(slots: Int, every pollInterval: Duration, shutdownDeadline: Duration) -> Configuration {
            Configuration(batch: slots, capacity: slots, concurrency: slots, refill: .whenSlotFree, pollInterval: pollInterval,
                          shutdownDeadline: shutdownDeadline, channels: [])
        }
    }

    let configuration: Configuration
    let work: Work
    private let database: PostgresConfiguration?
    private let logger: Logger
    private let wake = WakeSignal()
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var stopping = false
        var held = 0
    }

    /// - Parameter database: for the LISTEN connection (nil: no channels, polling only).
    init(work: Work, configuration: Configuration, database: PostgresConfiguration?, logger: Logger) {
        self.work = work
        self.configuration = configuration
        self.database = database
        self.logger = logger
    }

    /// Leases claimed and not yet ended.
    var held: Int { state.withLock { $0.held } }

    private var stopping: Bool { state.withLock { $0.stopping } }

    /// Stops claiming (graceful shutdown); `run` returns once the work in flight ended or was cancelled.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    /// Wakes the loop: look at the queue now.
    func signal() { wake.signal() }

    /// Runs until graceful shutdown (or cancellation), then drains.
    func run() async {
        let listener = database.flatMap { database in
            configuration.channels.isEmpty ? nil : PostgresListener(configuration: database, channels: configuration.channels, logger: logger)
        }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                if let listener {
                    group.addTask {
                        for await event in listener.events {
                            self.work.heard(event)
                            self.wake.signal()
                        }
                    }
                }
                switch configuration.refill {
                case .whenDrained: await self.batches()
                case .whenSlotFree: await self.slots()
                }
                listener?.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    /// Claims `wanted`, or nil after backing off a failed claim.
    private func claim(_ wanted: Int) async -> [Work.Lease]? {
        do {
            let leases = try await work.claim(limit: wanted)
            work.claimed(leases.count, of: wanted)
            return leases
        } catch {
            work.claimed(0, of: wanted)
            logger.warning("claim of \(work.label) failed; retrying in 1 s", metadata: ["error": "\(error)"])
            try? await Task.sleep(for: .seconds(1))
            return nil
        }
    }

    // MARK: - A batch at a time

    private func batches() async {
        let (batch, concurrency, deadline) = (configuration.batch, max(1, configuration.concurrency), configuration.shutdownDeadline)
        while !stopping && !Task.isCancelled {
            let wanted = work.admit(batch)
            guard wanted > 0 else {
                await wake.wait(timeout: configuration.pollInterval)
                continue
            }
            guard let leases = await claim(wanted) else { continue }
            state.withLock { $0.held = leases.count }
            await cancelAfterGracefulShutdown(deadline: deadline) {
                await withTaskGroup(of: Void.self) { group in
                    for (index, lease) in leases.enumerated() {
                        if index >= concurrency { await group.next() }
                        group.addTask {
                            await self.work.perform(lease)
                            self.state.withLock { $0.held -= 1 }
                        }
                    }
                }
            }
            if leases.count < wanted { await wake.wait(timeout: configuration.pollInterval) }
        }
    }

    // MARK: - A slot at a time

    private func slots() async {
        await withDiscardingTaskGroup { group in
            while !stopping && !Task.isCancelled {
                let free = min(configuration.batch, configuration.capacity - held)
                let wanted = free > 0 ? work.admit(free) : 0
                guard wanted > 0 else {
                    await wake.wait(timeout: configuration.pollInterval)
                    continue
                }
                guard let leases = await claim(wanted) else { continue }
                state.withLock { $0.held += leases.count }
                for lease in leases {
                    group.addTask {
                        await self.work.perform(lease)
                        self.state.withLock { $0.held -= 1 }
                        self.wake.signal()
                    }
                }
                if leases.count < wanted { await wake.wait(timeout: configuration.pollInterval) }
            }
            let deadline = ContinuousClock.now + configuration.shutdownDeadline
            while held > 0 && ContinuousClock.now < deadline && !Task.isCancelled { await wake.wait(timeout: .milliseconds(100)) }
            group.cancelAll()
        }
    }
}
