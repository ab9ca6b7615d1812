import Postgres

/// What the console's pages read, each one statement through the read-only login, answered as
/// JSON rows (the pages render them with `ConsoleHTML.table` under a `ConsoleTables` spec:
/// intervals in seconds, times as JSON timestamps). Each names the index or view it leans on;
/// their cost on a million jobs is in docs/benchmarks.md (console). The lists an operator pages
/// through are `ConsoleLists`.
enum ConsoleQueries {
    static func rows(_ select: String) -> String {
        "SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]'::jsonb)::text AS rows FROM (\(select)\n) x"   // the newline ends a trailing comment
    }

    static let queueDepth = rows("SELECT * FROM receiptq.queue_depth")
    static let queueHealth = rows("""
        SELECT extract(epoch FROM oldest_ready_age) AS oldest_ready_age, ready, verifying, expired_leases,
               retrying, finished_last_minute, finished_last_hour, failed_last_hour, rejected_last_hour, failure_rate_last_hour,
               notify_queue_usage
        FROM receiptq.queue_health
        """)
    static let failureSummary = rows("SELECT * FROM receiptq.failures LIMIT 20")
    static let notificationHealth = rows("SELECT * FROM receiptq.notification_health")
    static let webhookHealth = rows("SELECT * FROM receiptq.webhook_health")
    static let consumption = rows("SELECT state, count(*) AS requests FROM receiptq.consumption_requests GROUP BY state ORDER BY state")
    static let rateBudget = rows("SELECT * FROM receiptq.api_rate_budget_status")
    static let workers = rows("""
        SELECT worker, host, pid, live, started_at, beat_at, interval_ms / 1000.0 AS interval_seconds, leased_jobs
        FROM receiptq.live_workers ORDER BY live DESC, worker
        """)
    static let endpoints = rows("SELECT id, url, event_types, enabled, created_at, updated_at FROM receiptq.webhook_endpoints ORDER BY id")

    /// Search: a job id, a user, a transaction or original transaction, an order. Each arm uses
    /// its own index (jobs_pkey, jobs_user_idx, jobs_unsettled_transaction_idx, grants_user_idx,
    /// grants_transaction_idx, grants_original_idx, orders_pkey). A transaction's jobs are those
    /// not verifying or granted (queued, retried, failed, rejected…: what support looks for) and,
    /// through the grant that names it, the granted one: an index of every job's transaction id
    /// would cost each claim and each verdict one more index entry (no update of a job is HOT),
    /// 17% of bench queue's drain.
    static let searchJobs = rows("""
        SELECT id, kind, state, user_id, transaction_id, order_id, created_at FROM (
            SELECT id, kind, state, user_id, transaction_id, order_id, created_at FROM receiptq.jobs
            WHERE $2::bigint IS NOT NULL AND id = $2::bigint
            UNION SELECT * FROM (SELECT id, kind, state, user_id, transaction_id, order_id, created_at FROM receiptq.jobs
                                 WHERE user_id = $1 ORDER BY created_at DESC LIMIT 20) u
            UNION SELECT * FROM (SELECT id, kind, state, user_id, transaction_id, order_id, created_at FROM receiptq.jobs
                                 WHERE state NOT IN ('verifying', 'granted') AND transaction_id = $1 LIMIT 20) t
            UNION SELECT * FROM (SELECT id, kind, state, user_id, transaction_id, order_id, created_at FROM receiptq.jobs
                                 WHERE id IN (SELECT job_id FROM receiptq.grants WHERE transaction_id = $1) LIMIT 20) g
        ) j ORDER BY created_at DESC LIMIT 40
        """)
    static let searchGrants = rows("""
        SELECT purchase_key, user_id, original_transaction_id, transaction_id, product_id, granted_at, revoked_at, manual_by FROM (
            SELECT * FROM (SELECT * FROM receiptq.grants WHERE user_id = $1 ORDER BY granted_at DESC LIMIT 20) u
            UNION SELECT * FROM receiptq.grants WHERE transaction_id = $1
            UNION SELECT * FROM (SELECT * FROM receiptq.grants WHERE original_transaction_id = $1 LIMIT 20) o
            UNION SELECT g.* FROM receiptq.grants g JOIN receiptq.orders o ON o.order_id = $1 AND g.order_id = o.order_id
                                                                                               AND g.user_id = o.user_id
        ) g ORDER BY granted_at DESC LIMIT 40
        """)
    static let searchOrders = rows("SELECT order_id, user_id, product_id, state, created_at FROM receiptq.orders WHERE order_id = $1")

    /// One job's story: the job, the events it produced and their deliveries, its audit rows.
    static let job = rows("""
        SELECT id, kind, state, user_id, transaction_id, product_id, order_id, attempts, apple_status, apple_environment, last_error,
               outcome_reason, created_at, updated_at, run_at, finished_at, redriven_at, locked_by, locked_until, purchase_key,
               superseded_by, trusted_claim
        FROM receiptq.jobs WHERE id = $1
        """)
    static let jobEvents = rows("""
        SELECT sequence, id, type, user_id, purchase_key, created_at, body FROM receiptq.events WHERE job_id = $1 ORDER BY sequence LIMIT 51     -- events_job_idx
        """)
    static let jobDeliveries = rows("""
        SELECT d.endpoint_id, d.event_sequence, d.state, d.attempts, d.last_status, d.last_error, d.delivered_at
        FROM receiptq.deliveries d WHERE d.event_sequence IN (SELECT sequence FROM receiptq.events WHERE job_id = $1)   -- deliveries_event_idx
        ORDER BY d.event_sequence LIMIT 51
        """)
    static let jobGrant = rows("""
        SELECT g.purchase_key, g.user_id, g.original_transaction_id, g.product_id, g.granted_at, g.revoked_at
        FROM receiptq.grants g JOIN receiptq.jobs j ON j.purchase_key = g.purchase_key WHERE j.id = $1
        """)
    static let audit = rows("""
        SELECT id, at, actor, login, action, subject, why, before, after FROM receiptq.support_audit
        WHERE ($1::text IS NULL OR subject = $1 OR actor = $1) ORDER BY id DESC LIMIT 200
        """)

    static func run(_ sql: String, _ parameters: [(any PostgresEncodable)?] = [], on pool: PostgresPool) async throws -> [[String: Any]] {
        let json: String = try await pool.withConnection { try $0.query(sql, parameters)[0].decode("rows") }
        return ConsoleHTML.rows(json)
    }
}
