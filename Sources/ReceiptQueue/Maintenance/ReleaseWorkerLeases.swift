import Postgres

/// `receiptq release --worker NAME`: every lease a worker holds — jobs, notifications,
/// consumption requests, webhook deliveries, history syncs — ends now, as the scheduler would end it once it
/// expired (each queue's `leaseExpired` event: the attempt counts, and a row whose budget is spent
/// is given up, with its `job.failed` event in the same transaction). For a worker known to be
/// dead, instead of waiting out its leases. In one transaction, a batch at a time.
public enum ReleaseWorkerLeases {
    /// What moved, per queue.
    public struct Released: Sendable, Equatable {
        public var jobsRequeued = 0
        /// Jobs given up (`failed`): their budget was spent.
        public var jobsFailed: [Int64] = []
        public var notifications = 0
        public var consumptionRequests = 0
        public var deliveries = 0
        /// History syncs back in the queue (they resume from their revision) or given up.
        public var historySyncs = 0

        public var total: Int { jobsRequeued + jobsFailed.count + notifications + consumptionRequests + deliveries + historySyncs }
    }

    /// The budgets the scheduler applies to expired leases (its own flags): jobs, notifications,
    /// deliveries.
    public struct Budgets: Sendable {
        public var jobs: RetryBudget
        public var notifications: NotificationLifecycle
        public var deliveries: DeliveryLifecycle

        public init(jobs: RetryBudget = RetryBudget(), notifications: NotificationLifecycle = NotificationLifecycle(),
                    deliveries: DeliveryLifecycle = DeliveryLifecycle()) {
            self.jobs = jobs
            self.notifications = notifications
            self.deliveries = deliveries
        }
    }

    /// Releases every lease `worker` holds; run inside the caller's transaction.
    public static func run(worker: String, budgets: Budgets = Budgets(), batch: Int = 1000,
                           on connection: PostgresConnection) throws -> Released {
        var released = Released()
        while true {
            let (requeued, failed) = try RescueExpiredLeases.run(worker: worker, limit: batch, budget: budgets.jobs, on: connection)
            try AppendJobEvents.runForGivenUp(jobs: failed, on: connection)
            released.jobsRequeued += requeued
            released.jobsFailed += failed
            if requeued + failed.count < batch { break }
        }
        while true {
            let (notifications, requests) = try RescueNotificationLeases.run(
                worker: worker, limit: batch, maxAttempts: budgets.notifications.maxExpiredLeases, on: connection)
            released.notifications += notifications
            released.consumptionRequests += requests
            if notifications < batch && requests < batch { break }
        }
        while true {
            let deliveries = try RescueExpiredDeliveries.run(worker: worker, limit: batch, deadline: budgets.deliveries.deadline, on: connection)
            released.deliveries += deliveries
            if deliveries < batch { break }
        }
        while true {
            let syncs = try RescueHistorySyncLeases.run(limit: batch, worker: worker, on: connection)
            released.historySyncs += syncs
            if syncs < batch { break }
        }
        // Wake the idle workers and deliverers at commit.
        if released.jobsRequeued > 0 { try connection.query("SELECT pg_notify('receiptq_jobs', '')") }
        if released.notifications > 0 { try connection.query("SELECT pg_notify('receiptq_notifications', '')") }
        if released.deliveries > 0 { try connection.query("SELECT pg_notify('receiptq_events', '')") }
        return released
    }
}
