import Postgres
import ReceiptQueue
import Synchronization

/// Group commit: items submitted together (jobs, Apple's notifications) are inserted by one
/// statement, so one commit (one WAL flush) covers many requests and throughput is not bounded by
/// commits.
///
/// How batches form: a submission starts a batch at once when fewer than
/// `maxConcurrentCommits` batches are in flight (no added latency when idle). Otherwise it waits;
/// when a batch commits, everything that queued meanwhile (up to `maxBatch`) goes in the next.
/// Under load, batches grow by themselves to match the commit time.
///
/// Promises: `submit` returns only after the statement committed (a returned id is durable), each
/// caller gets its own result. If a batch fails for a reason other than the connection, its items
/// are retried one by one so a single bad one cannot fail the others (resubmission is safe: the
/// statements dedupe).
public final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    public typealias Configuration = GroupCommitConfiguration

    /// Inserts a batch and commits it, one output per item in order.
    typealias Commit = @Sendable ([Item]) async throws -> [Output]
    private typealias Waiter = (item: Item, continuation: CheckedContinuation<Output, any Error>)
    private struct State {
        var pending: [Waiter] = []
        var inFlight = 0
    }

    private let configuration: Configuration
    private let committed: @Sendable (Int) -> Void
    private let insert: Commit
    private let state = Mutex(State())

    /// `committed` is told each batch's size once it committed (metrics).
    init(configuration: Configuration, committed: @escaping @Sendable (Int) -> Void, insert: @escaping Commit) {
        self.configuration = configuration
        self.committed = committed
        self.insert = insert
    }

    /// Inserts `item`; returns after its commit.
    func submit(_ item: Item) async throws -> Output {
        guard configuration.enabled else {
            let output = try await insert([item])[0]
            committed(1)
            return output
        }
        return try await withCheckedThrowingContinuation { continuation in
            let batch = state.withLock { state -> [Waiter]? in
                state.pending.append((item, continuation))
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
            let results = try await insert(batch.map(\.item))
            committed(batch.count)
            for (waiter, result) in zip(batch, results) { waiter.continuation.resume(returning: result) }
        } catch let error as PostgresError where !error.isConnectionFailure && error.kind != .poolClosed && batch.count > 1 {
            for waiter in batch {
                do {
                    let result = try await insert([waiter.item])[0]
                    committed(1)
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

/// Jobs: receipts, signed transactions and transaction ids (`JobQueue.enqueue`).
typealias JobGroupCommit = GroupCommit<NewJob, EnqueuedJob>

extension GroupCommit where Item == NewJob, Output == EnqueuedJob {
    convenience init(queue: JobQueue, configuration: Configuration, metrics: APIMetrics) {
        self.init(configuration: configuration, committed: { metrics.committedBatch(size: $0) },
                  insert: { try await queue.enqueue($0) })
    }
}

/// How the API batches inserts into commits.
public struct GroupCommitConfiguration: Sendable {
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
