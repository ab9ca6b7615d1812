import Postgres

/// The queue's health in one row, for metrics (the scheduler exports it, so dashboards and alert
/// rules need no database access of their own). One statement over the ops views, which read only
/// partial indexes or bounded ranges (`queue_health`: 86 ms on 3 million jobs), plus the failed
/// jobs awaiting ops (`jobs_failed_idx`), the webhook deliveries per state, and the notifications
/// quarantined or failed (`notification_health`).
public enum ReadQueueHealth {
    static let sql = """
        SELECT coalesce(extract(epoch FROM h.oldest_ready_age), 0)::float8 AS oldest_ready_seconds,
               h.ready, h.verifying, h.expired_leases, h.retrying, h.notify_queue_usage::float8 AS notify_queue_usage,
               (SELECT jobs FROM receiptq.queue_depth WHERE state = 'queued') AS queued,
               (SELECT jobs FROM receiptq.queue_depth WHERE state = 'timed_out') AS timed_out,
               (SELECT count(*) FROM receiptq.jobs
                 WHERE state IN ('rejected', 'failed') AND state = 'failed') AS failed,      -- jobs_failed_idx
               (SELECT coalesce(sum(pending), 0) FROM receiptq.webhook_health) AS deliveries_pending,
               (SELECT coalesce(sum(failed), 0) FROM receiptq.webhook_health) AS deliveries_failed,
               (SELECT coalesce(extract(epoch FROM now() - min(oldest_pending_since)), 0)::float8
                  FROM receiptq.webhook_health) AS deliveries_oldest_pending_seconds,
               (SELECT coalesce(sum(quarantined), 0) FROM receiptq.notification_health) AS notifications_quarantined,
               (SELECT coalesce(sum(failed), 0) FROM receiptq.notification_health) AS notifications_failed
        FROM receiptq.queue_health h
        """

    public struct Health: Sendable, Equatable {
        /// Age of the oldest job ready to claim, in seconds (0: none).
        public var oldestReadySeconds: Double
        public var queued: Int
        public var ready: Int
        public var verifying: Int
        public var timedOut: Int
        public var expiredLeases: Int
        public var retrying: Int
        /// Jobs given up (`failed`), kept until ops re-drive them.
        public var failed: Int
        /// PostgreSQL's NOTIFY queue, 0 to 1.
        public var notifyQueueUsage: Double
        public var deliveriesPending: Int
        public var deliveriesFailed: Int
        /// Age of the oldest webhook delivery not yet acknowledged, any endpoint, in seconds (0: none).
        public var deliveriesOldestPendingSeconds: Double = 0
        /// Apple's notifications this configuration refused, kept until re-driven.
        public var notificationsQuarantined: Int
        /// Notifications that could not be applied, kept until re-driven.
        public var notificationsFailed: Int
    }

    public static func run(on connection: PostgresConnection) throws -> Health {
        let row = try connection.query(sql)[0]
        return Health(oldestReadySeconds: try row.decode("oldest_ready_seconds"), queued: try row.decode("queued"),
                      ready: try row.decode("ready"), verifying: try row.decode("verifying"), timedOut: try row.decode("timed_out"),
                      expiredLeases: try row.decode("expired_leases"), retrying: try row.decode("retrying"),
                      failed: try row.decode("failed"), notifyQueueUsage: try row.decode("notify_queue_usage"),
                      deliveriesPending: try row.decode("deliveries_pending"), deliveriesFailed: try row.decode("deliveries_failed"),
                      deliveriesOldestPendingSeconds: try row.decode("deliveries_oldest_pending_seconds"),
                      notificationsQuarantined: try row.decode("notifications_quarantined"),
                      notificationsFailed: try row.decode("notifications_failed"))
    }
}
