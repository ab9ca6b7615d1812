import Logging
import Postgres
import ServiceLifecycle

/// `receiptq scheduler`: every `interval`, the leader (see `SchedulerLeadership`) rescues
/// expired leases, requeues due `timed_out` jobs and prunes finished jobs past retention, each
/// in bounded batches. Safe to run several: the others stand by and take over within one
/// `interval` of the leader's death.
public final class Scheduler: Service, Sendable {
    public struct Configuration: Sendable {
        /// Time between ticks. Default 2 s.
        public var interval: Duration
        /// Rows per statement. Default 1,000.
        public var batchSize: Int
        /// Statements of each kind per tick at most, so one tick stays short. Default 20.
        public var maxBatchesPerTick: Int
        /// Finished jobs older than this are deleted; `nil` keeps them forever. Default 30 days.
        public var retention: Duration?
        /// The retry budget applied to rescued and requeued jobs (the workers' too). Default:
        /// `RetryBudget()` (72 h, 1,000 attempts).
        public var budget: RetryBudget

        public init(interval: Duration = .seconds(2), batchSize: Int = 1000, maxBatchesPerTick: Int = 20,
                    retention: Duration? = .seconds(30 * 86_400), budget: RetryBudget = RetryBudget()) {
            self.interval = interval
            self.batchSize = batchSize
            self.maxBatchesPerTick = maxBatchesPerTick
            self.retention = retention
            self.budget = budget
        }

        /// Each setting's range; the message names the flag.
        public func validate() throws(SchedulerConfigurationError) {
            guard interval > .zero else { throw .init("--interval must be positive") }
            guard batchSize > 0, maxBatchesPerTick > 0 else { throw .init("--batch-size must be positive") }
            guard budget.maxAttempts > 0 else { throw .init("--max-attempts must be positive") }
            guard budget.deadline > .zero else { throw .init("--retry-deadline must be positive") }
            if let retention, retention <= .zero { throw .init("--retention must be positive (0s keeps jobs forever)") }
        }
    }

    /// What one tick did.
    public struct Tick: Sendable, Equatable {
        public var isLeader: Bool
        public var requeuedExpiredLeases = 0
        public var requeuedTimedOut = 0
        public var failed = 0
        public var pruned = 0
    }

    public let configuration: Configuration
    private let pool: PostgresPool
    private let logger: Logger

    /// `database` is dedicated to the scheduler: one connection, whose session holds the lock.
    public init(database: PostgresConfiguration, configuration: Configuration = .init(), logger: Logger) {
        self.configuration = configuration
        self.pool = PostgresPool(configuration: database, size: 1, logger: logger)
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var wasLeader = false
            while !Task.isCancelled {
                do {
                    let tick = try await self.tick()
                    if tick.isLeader != wasLeader {
                        self.logger.notice(tick.isLeader ? "scheduler leads" : "scheduler stands by (another one leads)")
                        wasLeader = tick.isLeader
                    }
                    if tick.requeuedExpiredLeases + tick.requeuedTimedOut + tick.failed + tick.pruned > 0 {
                        self.logger.info("scheduler tick", metadata: [
                            "expired_leases_requeued": "\(tick.requeuedExpiredLeases)",
                            "timed_out_requeued": "\(tick.requeuedTimedOut)",
                            "failed": "\(tick.failed)", "pruned": "\(tick.pruned)",
                        ])
                    }
                } catch {
                    if wasLeader { self.logger.warning("scheduler lost the database; leadership will be retaken") }
                    wasLeader = false
                    self.logger.warning("scheduler tick failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: self.configuration.interval)
            }
        }
        _ = try? await pool.withConnection { try SchedulerLeadership.release(on: $0) }
        pool.shutdown()
    }

    /// One round: take or keep leadership, then (as leader) do the maintenance.
    public func tick() async throws -> Tick {
        let configuration = self.configuration
        return try await pool.withConnection { connection in
            guard try SchedulerLeadership.acquire(on: connection) else { return Tick(isLeader: false) }
            var tick = Tick(isLeader: true)
            for _ in 0..<configuration.maxBatchesPerTick {
                let (requeued, failed) = try RescueExpiredLeases.run(limit: configuration.batchSize, budget: configuration.budget, on: connection)
                tick.requeuedExpiredLeases += requeued
                tick.failed += failed
                if requeued + failed < configuration.batchSize { break }
            }
            for _ in 0..<configuration.maxBatchesPerTick {
                let (requeued, failed) = try RequeueTimedOut.run(limit: configuration.batchSize, budget: configuration.budget, on: connection)
                tick.requeuedTimedOut += requeued
                tick.failed += failed
                if requeued + failed < configuration.batchSize { break }
            }
            if tick.requeuedExpiredLeases + tick.requeuedTimedOut > 0 {
                try connection.query("SELECT pg_notify('receiptq_jobs', '')")  // wake idle workers
            }
            if let retention = configuration.retention {
                for _ in 0..<configuration.maxBatchesPerTick {
                    let pruned = try PruneFinishedJobs.run(retention: retention, limit: configuration.batchSize, on: connection)
                    tick.pruned += pruned
                    if pruned < configuration.batchSize { break }
                }
            }
            return tick
        }
    }
}

/// A scheduler setting that cannot work; the message names the flag.
public struct SchedulerConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
