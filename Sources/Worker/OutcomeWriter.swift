import Foundation
import Logging
import Postgres
import ReceiptQueue
import Synchronization

/// Writes finished attempts in batches: one transaction per batch (`JobQueue.record`), flushed when
/// `maxBatch` attempts wait or `flushInterval` after the first one arrived, so the database is
/// not the bottleneck at thousands of verifications per second.
///
/// A batch that fails for a passing reason (deadlock, lost connection, server restart) is retried
/// whole — it is fenced and idempotent. A batch that fails for a lasting reason is split, and an
/// attempt that cannot be written even alone ends `failed` with the error, so one bad row never
/// blocks the others or circulates forever (invariant 7).
public final class OutcomeWriter: Sendable {
    public struct Configuration: Sendable {
        /// Longest wait before a partial batch is written. Default 5 ms.
        public var flushInterval: Duration = .milliseconds(5)
        /// Most attempts per transaction. Default 500.
        public var maxBatch = 500
        /// What the ledger demands of a new purchase's owner. Default: `OwnershipPolicy()`.
        public var ownership = OwnershipPolicy()
        public init() {}
    }

    private let configuration: Configuration
    /// Every write goes through the queue's façade (its lifecycle decides retries and giving up).
    private let jobs: JobQueue
    private let worker: String
    private let metrics: WorkerMetrics
    private let logger: Logger
    private let queue = Mutex(Pending())

    struct Pending: ~Copyable {
        var attempts: [FinishedAttempt] = []
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    public init(queue: JobQueue, worker: String, configuration: Configuration = .init(), metrics: WorkerMetrics, logger: Logger) {
        self.configuration = configuration
        self.jobs = queue
        self.worker = worker
        self.metrics = metrics
        self.logger = logger
    }

    /// Queues an attempt for the next batch. Never blocks.
    public func submit(_ attempt: FinishedAttempt) {
        queue.withLock { pending in
            pending.attempts.append(attempt)
            let waiter = pending.waiter
            pending.waiter = nil
            return waiter
        }?.resume()
    }

    /// No more attempts will come: `run` writes what is queued and returns.
    public func finish() {
        queue.withLock { pending in
            pending.finished = true
            let waiter = pending.waiter
            pending.waiter = nil
            return waiter
        }?.resume()
    }

    /// Attempts queued and not yet taken by a batch.
    public var backlog: Int { queue.withLock { $0.attempts.count } }

    /// The writing loop; returns after `finish()` once everything queued is written.
    public func run() async {
        while true {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = queue.withLock { pending in
                    if pending.attempts.isEmpty && !pending.finished {
                        pending.waiter = continuation
                        return false
                    }
                    return true
                }
                if ready { continuation.resume() }
            }
            // Let a batch gather, unless it is already full or we are draining for shutdown.
            let (count, finished) = queue.withLock { ($0.attempts.count, $0.finished) }
            if count == 0 && finished { return }
            if count < configuration.maxBatch && !finished {
                try? await Task.sleep(for: configuration.flushInterval)
            }
            let batch = queue.withLock { pending in
                let taken = Array(pending.attempts.prefix(configuration.maxBatch))
                pending.attempts.removeFirst(taken.count)
                return taken
            }
            if !batch.isEmpty { await write(batch) }
        }
    }

    func write(_ batch: [FinishedAttempt]) async {
        let started = ContinuousClock.now
        for attempt in 1...6 {
            do {
                let startedAt = Date()
                let result = try await record(batch)
                JobSpans.written(batch, result: result, from: startedAt, to: Date())
                metrics.recordWritten(result, batchSize: batch.count, seconds: (ContinuousClock.now - started).seconds)
                if logger.logLevel <= .debug {
                    for attempt in batch {
                        var metadata = attempt.lease.logMetadata
                        metadata["outcome"] = .string(result.outcomes[attempt.lease.id]?.metricName
                                                      ?? (result.lostLease.contains(attempt.lease.id) ? "lost_lease" : "not_finished"))
                        logger.debug("job attempt recorded", metadata: metadata)
                    }
                }
                if let skipped = result.subscriptionFactsSkipped {
                    logger.error("the subscription model could not take a batch's facts; the verdicts are written without them (the next status check corrects the model)",
                                 metadata: ["error": "\(skipped)", "facts": "\(batch.reduce(0) { $0 + $1.subscriptionFacts.count })"])
                }
                if !result.lostLease.isEmpty {
                    logger.info("outcomes refused by the fence (lease lost: job retried elsewhere)", metadata: ["jobs": "\(result.lostLease.count)"])
                }
                return
            } catch let error as PostgresError where error.isTransient {
                logger.warning("writing outcomes failed; retrying", metadata: ["error": "\(error)", "try": "\(attempt)"])
                try? await Task.sleep(for: .milliseconds(100 * (1 << min(attempt, 5))))
            } catch {
                return await isolate(batch, error: error)
            }
        }
        logger.error("could not write \(batch.count) outcomes; their leases will expire and the jobs will be verified again")
    }

    private func record(_ batch: [FinishedAttempt]) async throws -> RecordOutcomes.Result {
        try await jobs.record(batch, worker: worker, ownership: configuration.ownership)
    }

    /// A lasting error: write halves apart; a single attempt that still fails ends `failed`.
    private func isolate(_ batch: [FinishedAttempt], error: Error) async {
        guard batch.count > 1 else {
            let attempt = batch[0]
            logger.error("outcome cannot be written; the job ends failed",
                         metadata: attempt.lease.logMetadata.merging(["error": "\(error)"]) { $1 })
            var failed = attempt
            failed.decision = .result(.failed(reason: "could not record the outcome: \(String(describing: error).prefix(200))"))
            if (try? await record([failed])) == nil {
                logger.error("job could not even be marked failed; its lease will expire", metadata: attempt.lease.logMetadata)
            }
            return
        }
        let middle = batch.count / 2
        await write(Array(batch[..<middle]))
        await write(Array(batch[middle...]))
    }
}

extension PostgresError {
    /// Worth retrying the same transaction: the connection broke, or PostgreSQL aborted it for
    /// a deadlock or a serialization failure.
    var isTransient: Bool {
        isConnectionFailure || ["40P01", "40001", "55P03", "53300"].contains(sqlState ?? "")
    }
}
