import Logging
import Postgres
import ServiceLifecycle

/// `receiptq scheduler`: every `interval`, the leader (see `SchedulerLeadership`) rescues
/// expired leases, requeues due `timed_out` jobs and prunes finished jobs, events, notifications
/// subscription corrections and call minutes (`receiptq.call_minutes`) past their retention, each in bounded batches. Safe to run several: the others stand by and take over within one
/// `interval` of the leader's death.
public final class Scheduler: Service, Sendable {
    public struct Configuration: Sendable {
        /// Time between ticks. Default 2 s.
        public var interval: Duration
        /// Rows per statement. Default 1,000.
        public var batchSize: Int
        /// Statements of each kind per tick at most, so one tick stays short. Default 20.
        public var maxBatchesPerTick: Int
        /// Jobs that ended granted, already granted or resubmit are deleted this long after (the
        /// ledger keeps the purchase); `nil` keeps them forever. Default 30 days.
        public var retention: Duration?
        /// Jobs Apple rejected, and jobs of a purchase another account owns, are kept this long
        /// (disputes, fraud review); `nil`: forever. Default 365 days.
        public var rejectedRetention: Duration?
        /// Jobs that failed (gave up) are kept this long; `nil`: forever, until ops re-drive them.
        /// Default forever.
        public var failedRetention: Duration?
        /// The retry budget applied to rescued and requeued jobs (the workers' too). Default:
        /// `RetryBudget()` (72 h, 1,000 attempts).
        public var budget: RetryBudget
        /// Events (the feed, webhook replay) are kept this long once delivered; `nil`: forever.
        /// Default 30 days.
        public var eventRetention: Duration?
        /// A webhook delivery whose lease expired is given up past this deadline (the
        /// deliverers' own). Default 72 h.
        public var deliveryDeadline: Duration
        /// Applied App Store notifications (and their signed payloads) are kept this long; `nil`:
        /// forever. Default 365 days.
        public var notificationRetention: Duration? = .seconds(365 * 86_400)
        /// Subscription corrections (`receiptq.subscription_corrections`: what status checks and
        /// history syncs found notifications had left wrong) are kept this long; `nil`: forever. At
        /// least 24 h, the window `receiptq.reconciliation_health` counts. Default 90 days.
        public var correctionRetention: Duration? = .seconds(90 * 86_400)

        public init(interval: Duration = .seconds(2), batchSize: Int = 1000, maxBatchesPerTick: Int = 20,
                    retention: Duration? = .seconds(30 * 86_400), rejectedRetention: Duration? = .seconds(365 * 86_400),
                    failedRetention: Duration? = nil, budget: RetryBudget = RetryBudget(),
                    eventRetention: Duration? = .seconds(30 * 86_400), deliveryDeadline: Duration = .seconds(72 * 3600)) {
            self.eventRetention = eventRetention
            self.deliveryDeadline = deliveryDeadline
            self.interval = interval
            self.batchSize = batchSize
            self.maxBatchesPerTick = maxBatchesPerTick
            self.retention = retention
            self.rejectedRetention = rejectedRetention
            self.failedRetention = failedRetention
            self.budget = budget
        }

        /// Each setting's range; the message names the flag.
        public func validate() throws(SchedulerConfigurationError) {
            guard interval > .zero else { throw .init("--interval must be positive") }
            guard batchSize > 0, maxBatchesPerTick > 0 else { throw .init("--batch-size must be positive") }
            guard budget.maxAttempts > 0 else { throw .init("--max-attempts must be positive") }
            guard budget.deadline > .zero else { throw .init("--retry-deadline must be positive") }
            for (flag, value) in [("--retention", retention), ("--rejected-retention", rejectedRetention), ("--failed-retention", failedRetention)] {
                if let value, value <= .zero { throw .init("\(flag) must be positive (0s keeps jobs forever)") }
            }
            if let correctionRetention, correctionRetention < .seconds(86_400) {
                throw .init("--correction-retention must be at least 24h (receiptq.reconciliation_health counts the last 24 h), or 0s to keep corrections forever")
            }
        }
    }

    /// What one tick did.
    public struct Tick: Sendable, Equatable {
        public var isLeader: Bool
        public var requeuedExpiredLeases = 0
        public var requeuedTimedOut = 0
        public var failed = 0
        public var pruned = 0
        public var requeuedDeliveries = 0
        public var prunedEvents = 0
        public var requeuedNotifications = 0
        public var prunedNotifications = 0
        public var expiredConsumptionRequests = 0
        public var requeuedHistorySyncs = 0
        public var prunedCorrections = 0
        public var prunedCallMinutes = 0
    }

    public let configuration: Configuration
    private let pool: PostgresPool
    private let logger: Logger

    /// `database` is dedicated to the scheduler: one connection, whose session holds the lock.
    public init(database: PostgresConfiguration, configuration: Configuration = .init(), logger: Logger) {
        self.configuration = configuration
        self.pool = PostgresPool(configuration: database, size: 1, name: "maintenance", logger: logger)
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
                    if tick.requeuedExpiredLeases + tick.requeuedTimedOut + tick.failed + tick.pruned + tick.requeuedDeliveries
                        + tick.prunedEvents + tick.requeuedNotifications + tick.prunedNotifications + tick.expiredConsumptionRequests
                        + tick.requeuedHistorySyncs + tick.prunedCorrections + tick.prunedCallMinutes > 0 {
                        self.logger.info("scheduler tick", metadata: [
                            "expired_leases_requeued": "\(tick.requeuedExpiredLeases)",
                            "timed_out_requeued": "\(tick.requeuedTimedOut)",
                            "failed": "\(tick.failed)", "pruned": "\(tick.pruned)",
                            "deliveries_requeued": "\(tick.requeuedDeliveries)", "events_pruned": "\(tick.prunedEvents)",
                            "notifications_requeued": "\(tick.requeuedNotifications)", "notifications_pruned": "\(tick.prunedNotifications)",
                            "consumption_requests_expired": "\(tick.expiredConsumptionRequests)",
                            "history_syncs_requeued": "\(tick.requeuedHistorySyncs)",
                            "corrections_pruned": "\(tick.prunedCorrections)",
                            "call_minutes_pruned": "\(tick.prunedCallMinutes)",
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
            // A job given up and its job.failed event commit together.
            for _ in 0..<configuration.maxBatchesPerTick {
                let (requeued, failed) = try connection.transaction { connection in
                    let result = try RescueExpiredLeases.run(limit: configuration.batchSize, budget: configuration.budget, on: connection)
                    try AppendJobEvents.runForGivenUp(jobs: result.failed, on: connection)
                    return result
                }
                tick.requeuedExpiredLeases += requeued
                tick.failed += failed.count
                if requeued + failed.count < configuration.batchSize { break }
            }
            for _ in 0..<configuration.maxBatchesPerTick {
                let (requeued, failed) = try connection.transaction { connection in
                    let result = try RequeueTimedOut.run(limit: configuration.batchSize, budget: configuration.budget, on: connection)
                    try AppendJobEvents.runForGivenUp(jobs: result.failed, on: connection)
                    return result
                }
                tick.requeuedTimedOut += requeued
                tick.failed += failed.count
                if requeued + failed.count < configuration.batchSize { break }
            }
            for _ in 0..<configuration.maxBatchesPerTick {
                let rescued = try RescueExpiredDeliveries.run(limit: configuration.batchSize, deadline: configuration.deliveryDeadline,
                                                              on: connection)
                tick.requeuedDeliveries += rescued
                if rescued < configuration.batchSize { break }
            }
            if tick.requeuedDeliveries > 0 { try connection.query("SELECT pg_notify('receiptq_events', '')") }
            for _ in 0..<configuration.maxBatchesPerTick {
                let rescued = try RescueNotificationLeases.run(limit: configuration.batchSize, on: connection)
                tick.requeuedNotifications += rescued
                if rescued < configuration.batchSize { break }
            }
            if tick.requeuedNotifications > 0 { try connection.query("SELECT pg_notify('receiptq_notifications', '')") }
            tick.expiredConsumptionRequests = try ExpireConsumptionRequests.run(limit: configuration.batchSize, on: connection)
            for _ in 0..<configuration.maxBatchesPerTick {
                let rescued = try RescueHistorySyncLeases.run(limit: configuration.batchSize, on: connection)
                tick.requeuedHistorySyncs += rescued
                if rescued < configuration.batchSize { break }
            }
            if let retention = configuration.notificationRetention {
                for _ in 0..<configuration.maxBatchesPerTick {
                    let pruned = try PruneNotifications.run(retention: retention, limit: configuration.batchSize, on: connection)
                    tick.prunedNotifications += pruned
                    if pruned < configuration.batchSize { break }
                }
            }
            if let retention = configuration.correctionRetention {
                for _ in 0..<configuration.maxBatchesPerTick {
                    let pruned = try PruneSubscriptionCorrections.run(retention: retention, limit: configuration.batchSize, on: connection)
                    tick.prunedCorrections += pruned
                    if pruned < configuration.batchSize { break }
                }
            }
            for _ in 0..<configuration.maxBatchesPerTick {
                let pruned = try PruneCallMinutes.run(limit: configuration.batchSize, on: connection)
                tick.prunedCallMinutes += pruned
                if pruned < configuration.batchSize { break }
            }
            if let retention = configuration.eventRetention {
                for _ in 0..<configuration.maxBatchesPerTick {
                    let pruned = try PruneEvents.run(retention: retention, limit: configuration.batchSize, on: connection)
                    tick.prunedEvents += pruned
                    if pruned < configuration.batchSize { break }
                }
            }
            if tick.requeuedExpiredLeases + tick.requeuedTimedOut > 0 {
                try connection.query("SELECT pg_notify('receiptq_jobs', '')")  // wake idle workers
            }
            let retentions: [(PruneFinishedJobs.Outcomes, Duration?)] = [
                (.settled, configuration.retention), (.rejected, configuration.rejectedRetention), (.failed, configuration.failedRetention),
            ]
            for case let (outcomes, retention?) in retentions {
                for _ in 0..<configuration.maxBatchesPerTick {
                    let pruned = try PruneFinishedJobs.run(outcomes, retention: retention, limit: configuration.batchSize, on: connection)
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
