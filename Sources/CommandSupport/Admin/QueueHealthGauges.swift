import Logging
import Postgres
import Prometheus
import ReceiptQueue
import ServiceLifecycle

/// The queue's health as gauges (`receiptq_scheduler_queue_*`), sampled by the scheduler every
/// `interval` on a connection of its own: queue depth and the oldest ready job's age for the
/// Grafana dashboard, failed jobs, the NOTIFY queue and failing webhook deliveries for the alert
/// rules, without giving Prometheus or Grafana a database login. Every scheduler exports them
/// (the standby too): dashboards take the max.
public struct QueueHealthGauges: Service {
    public let interval: Duration
    private let database: PostgresConfiguration
    private let logger: Logger
    private let gauges: Gauges

    /// - Parameter interval: between samples. Default 15 s (a Prometheus scrape interval).
    public init(database: PostgresConfiguration, registry: PrometheusCollectorRegistry, interval: Duration = .seconds(15), logger: Logger) {
        var configuration = database
        configuration.applicationName += "-metrics"
        self.database = configuration
        self.interval = interval
        self.logger = logger
        self.gauges = Gauges(registry: registry)
    }

    public func run() async throws {
        let pool = PostgresPool(configuration: database, size: 1, name: "queue-health", logger: logger)
        defer { pool.shutdown() }
        await cancelWhenGracefulShutdown {
            var failing = false   // logged once per run of failures
            while !Task.isCancelled {
                do {
                    gauges.set(try await pool.withConnection { try ReadQueueHealth.run(on: $0) })
                    failing = false
                } catch {
                    if !failing { logger.warning("queue health could not be read", metadata: ["error": "\(error)"]) }
                    failing = true
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    struct Gauges: Sendable {
        let queued, ready, verifying, timedOut, expiredLeases, retrying, failed, oldestReady, notifyQueue, pending, deliveriesFailed: Gauge
        let oldestPendingDelivery: Gauge
        let notificationsQuarantined, notificationsFailed: Gauge

        init(registry: PrometheusCollectorRegistry) {
            func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
                registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
            }
            let jobs = "Jobs not finished, by state (queued, verifying, timed_out), as receiptq.queue_depth counts them."
            queued = gauge("receiptq_scheduler_queue_jobs", jobs, [("state", "queued")])
            verifying = gauge("receiptq_scheduler_queue_jobs", jobs, [("state", "verifying")])
            timedOut = gauge("receiptq_scheduler_queue_jobs", jobs, [("state", "timed_out")])
            ready = gauge("receiptq_scheduler_queue_ready_jobs", "Queued jobs due now.")
            expiredLeases = gauge("receiptq_scheduler_queue_expired_leases", "Jobs whose lease expired, waiting for the scheduler to requeue them.")
            retrying = gauge("receiptq_scheduler_queue_retrying_jobs", "Queued jobs waiting to retry after an error.")
            failed = gauge("receiptq_scheduler_queue_failed_jobs", "Jobs given up (failed), kept until ops re-drive them (receiptq redrive).")
            oldestReady = gauge("receiptq_scheduler_queue_oldest_ready_age_seconds", "Age of the oldest job ready to claim, in seconds (0: none).")
            notifyQueue = gauge("receiptq_scheduler_notify_queue_usage_ratio",
                                "PostgreSQL's NOTIFY queue in use, 0 to 1: at 1 every enqueue and completion fails.")
            pending = gauge("receiptq_scheduler_webhook_deliveries_pending", "Webhook deliveries queued or being delivered.")
            oldestPendingDelivery = gauge("receiptq_scheduler_webhook_oldest_pending_age_seconds",
                                          "Age of the oldest webhook delivery not yet acknowledged, any endpoint, in seconds (0: none): the backlog a receiver sees.")
            deliveriesFailed = gauge("receiptq_scheduler_webhook_deliveries_failed", "Webhook deliveries given up, re-drivable (receiptq webhooks redrive).")
            let notifications = "App Store Server Notifications kept but not applied, by state: quarantined (Apple's, refused by the API's configuration) or failed; re-drivable (receiptq notifications redrive)."
            notificationsQuarantined = gauge("receiptq_scheduler_notifications_unapplied", notifications, [("state", "quarantined")])
            notificationsFailed = gauge("receiptq_scheduler_notifications_unapplied", notifications, [("state", "failed")])
        }

        func set(_ health: ReadQueueHealth.Health) {
            queued.set(Double(health.queued))
            verifying.set(Double(health.verifying))
            timedOut.set(Double(health.timedOut))
            ready.set(Double(health.ready))
            expiredLeases.set(Double(health.expiredLeases))
            retrying.set(Double(health.retrying))
            failed.set(Double(health.failed))
            oldestReady.set(health.oldestReadySeconds)
            notifyQueue.set(health.notifyQueueUsage)
            pending.set(Double(health.deliveriesPending))
            deliveriesFailed.set(Double(health.deliveriesFailed))
            oldestPendingDelivery.set(health.deliveriesOldestPendingSeconds)
            notificationsQuarantined.set(Double(health.notificationsQuarantined))
            notificationsFailed.set(Double(health.notificationsFailed))
        }
    }
}
