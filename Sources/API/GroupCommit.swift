import Postgres
import ReceiptQueue
import Synchronization

/// Group commit: receipts submitted together are inserted by one `EnqueueBatch` statement, so
/// one commit (one WAL flush) covers many requests and throughput is not bounded by commits.
///
/// How batches form: a submission starts a batch at once when fewer than
/// `maxConcurrentCommits` batches are in flight (no added latency when idle). Otherwise it waits;
/// when a batch commits, everything that queued meanwhile (up to `maxBatch`) goes in the next.
/// Under load, batches grow by themselves to match the commit time.
///
/// Promises: `submit` returns only after the statement committed (a returned id is durable), each
/// caller gets its own `EnqueuedJob`. If a batch fails for a reason other than the connection,
/// its jobs are retried one by one so a single bad job cannot fail the others (resubmission is
/// safe: identical jobs dedupe).
public final class GroupCommit: Sendable {
    public struct Configuration: Sendable {
        /// Off: one INSERT and commit per request (the benchmark's baseline). Default: true.
        public var enabled: Bool
        /// Most jobs in one statement. Default: 512.
        public var maxBatch: Int
        /// Batches committing at once (each holds a pool connection). Default: 2.
        public var maxConcurrentCommits: Int

        public init(enabled: Bool = true, maxBatch: Int = 512, maxConcurrentCommits: Int = 2) {
            self.enabled = enabled
            self.maxBatch = max(1, maxBatch)
            self.maxConcurrentCommits = max(1, maxConcurrentCommits)
        }
    }

    private typealias Waiter = (job: NewJob, continuation: CheckedContinuation<EnqueuedJob, any Error>)
    private struct State {
        var pending: [Waiter] = []
        var inFlight = 0
    }

    private let queue: JobQueue
    private let configuration: Configuration
    private let metrics: APIMetrics
    private let state = Mutex(State())

    init(queue: JobQueue, configuration: Configuration, metrics: APIMetrics) {
        self.queue = queue
        self.configuration = configuration
        self.metrics = metrics
    }

    /// Enqueues `job`; returns after its commit.
    func submit(_ job: NewJob) async throws -> EnqueuedJob {
        guard configuration.enabled else {
            metrics.committedBatch(size: 1)
            return try await queue.enqueue([job])[0]
        }
        return try await withCheckedThrowingContinuation { continuation in
            let batch = state.withLock { state -> [Waiter]? in
                state.pending.append((job, continuation))
                return takeBatch(&state)
            }
            if let batch { start(batch) }
        }
    }

    /// The next batch if a commit slot is free and something waits (call with the lock held).
    private func takeBatch(_ state: inout State) -> [Waiter]? {
        guard state.inFlight < configuration.maxConcurrentCommits, !state.pending.isEmpty else { return nil }
        state.inFlight += 1
        let count = min(configuration.maxBatch, state.pending.count)
        let batch = Array(state.pending.prefix(count))
        state.pending.removeFirst(count)
        return batch
    }

    private func start(_ batch: [Waiter]) {
        Task {
            await commit(batch)
            let next = state.withLock { state -> [Waiter]? in
                state.inFlight -= 1
                return takeBatch(&state)
            }
            if let next { start(next) }
        }
    }

    private func commit(_ batch: [Waiter]) async {
        do {
            let results = try await queue.enqueue(batch.map(\.job))
            metrics.committedBatch(size: batch.count)
            for (waiter, result) in zip(batch, results) { waiter.continuation.resume(returning: result) }
        } catch let error as PostgresError where !error.isConnectionFailure && error.kind != .poolClosed && batch.count > 1 {
            for waiter in batch {
                do {
                    let result = try await queue.enqueue([waiter.job])[0]
                    metrics.committedBatch(size: 1)
                    waiter.continuation.resume(returning: result)
                } catch {
                    waiter.continuation.resume(throwing: error)
                }
            }
        } catch {
            for waiter in batch { waiter.continuation.resume(throwing: error) }
        }
    }
}
