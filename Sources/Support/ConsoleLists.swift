/// The console's paged lists (`ConsoleList`), each walking one index in its order: a page reads
/// its size in index entries plus what its filters pass over, never the whole table.
enum ConsoleLists {
    typealias L = ConsoleList

    static let failureColumns = """
        id, kind, state, user_id, transaction_id, product_id, attempts, apple_status, coalesce(outcome_reason, last_error) AS reason
        """
    static let failureFilters = """
        AND ($1::int IS NULL OR apple_status = $1) AND ($2::text IS NULL OR coalesce(outcome_reason, last_error) ILIKE '%' || $2 || '%')
        """

    /// The failures page, by state: failed and rejected jobs newest verdict first (jobs_failed_idx),
    /// retrying ones latest next try first (jobs_ready_idx: the retries, due later, come before a
    /// backlog never tried), timed-out ones by their due time (jobs_timed_out_idx). The state is
    /// one of these keys, never the request's text.
    static let failures: [String: L] = [
        "failed": finished("failed"), "rejected": finished("rejected"),
        "queued": L(sql: """
            SELECT \(failureColumns), run_at AS at, \(L.key("run_at", "id")) AS page_key FROM receiptq.jobs
            WHERE state = 'queued' AND last_error IS NOT NULL \(failureFilters) AND {page}
            ORDER BY {order} LIMIT {limit}
            """, keys: ["run_at", "id"], shape: [.micros, .number]),
        "timed_out": L(sql: """
            SELECT \(failureColumns), run_at AS at, \(L.key("run_at", "id")) AS page_key FROM receiptq.jobs
            WHERE state = 'timed_out' \(failureFilters) AND {page}
            ORDER BY {order} LIMIT {limit}
            """, keys: ["run_at", "id"], shape: [.micros, .number]),
    ]
    static let failureStates = ["failed", "rejected", "queued", "timed_out"]

    static func finished(_ state: String) -> L {
        L(sql: """
            SELECT \(failureColumns), finished_at AS at, \(L.key("finished_at", "id")) AS page_key FROM receiptq.jobs
            WHERE state = '\(state)' \(failureFilters) AND {page}
            ORDER BY {order} LIMIT {limit}
            """, keys: ["finished_at", "id"], shape: [.micros, .number])
    }

    /// The audit log, newest first (support_audit_pkey); by subject or operator (`q`), operator,
    /// action. Support writes at a person's pace: its filters pass over that log, not the queue.
    static let audit = L(sql: """
        SELECT id, at, actor, login, action, subject, why, before, after, id::text AS page_key FROM receiptq.support_audit
        WHERE ($1::text IS NULL OR subject = $1 OR actor = $1) AND ($2::text IS NULL OR actor = $2) AND ($3::text IS NULL OR action = $3)
          AND {page}
        ORDER BY {order} LIMIT {limit}
        """, keys: ["id"], shape: [.number])

    /// Failed webhook deliveries, newest first: a page per endpoint from deliveries_failed_idx
    /// (endpoint, created_at), merged — endpoints are few, so a page reads endpoints × its size.
    static let failedDeliveries = L(sql: """
        SELECT * FROM (
          SELECT d.* FROM receiptq.webhook_endpoints e CROSS JOIN LATERAL (
            SELECT endpoint_id, event_sequence, user_id, attempts, last_status, last_error, created_at,
                   \(L.key("created_at", "event_sequence", "endpoint_id")) AS page_key
            FROM receiptq.deliveries WHERE state = 'failed' AND endpoint_id = e.id AND {page} ORDER BY {order} LIMIT {limit}) d
          WHERE ($1::text IS NULL OR e.id = $1)
        ) x ORDER BY {order} LIMIT {limit}
        """, keys: ["created_at", "event_sequence", "endpoint_id"], shape: [.micros, .number, .text])

    /// Failed or quarantined notifications, newest first (notifications_received_idx; quarantined
    /// alone: notifications_quarantined_idx). The state is one of these keys.
    static let notifications: [String: L] = [
        "": notifications("state IN ('failed', 'quarantined')"),
        "failed": notifications("state = 'failed'"),
        "quarantined": notifications("state = 'quarantined'"),
    ]

    static func notifications(_ state: String) -> L {
        L(sql: """
            SELECT notification_uuid, notification_type, subtype, environment, original_transaction_id, state, attempts, last_error, received_at,
                   \(L.key("received_at", "notification_uuid")) AS page_key
            FROM receiptq.notifications WHERE \(state) AND ($1::text IS NULL OR notification_type = $1) AND {page}
            ORDER BY {order} LIMIT {limit}
            """, keys: ["received_at", "notification_uuid"], shape: [.micros, .uuid])
    }

    /// A job's states (jobs_state_check), the customer's jobs filter.
    static let jobStates = ["queued", "verifying", "timed_out", "granted", "already_granted", "rejected", "failed", "resubmit", "owned_elsewhere"]

    /// A customer's jobs, newest first (jobs_user_idx: user, created_at).
    static let customerJobs = L(sql: """
        SELECT id, kind, state, transaction_id, user_id, product_id, order_id, attempts, apple_status, apple_environment, last_error,
               outcome_reason, created_at, finished_at, run_at, locked_by, \(L.key("created_at", "id")) AS page_key
        FROM receiptq.jobs WHERE user_id = $1 AND ($2::text IS NULL OR state = $2) AND {page}
        ORDER BY {order} LIMIT {limit}
        """, keys: ["created_at", "id"], shape: [.micros, .number])

    /// A customer's grants (their purchases), newest first (grants_user_idx: user, granted_at, purchase_key).
    static let customerGrants = L(sql: """
        SELECT purchase_key, transaction_id, original_transaction_id, job_id, user_id, product_id, product_type, quantity, purchase_date,
               expires_date, environment, ownership_type, order_id, unmatched, granted_at, revoked_at, revocation_reason, manual_by,
               \(L.key("granted_at", "purchase_key")) AS page_key
        FROM receiptq.grants WHERE user_id = $1 AND {page}
        ORDER BY {order} LIMIT {limit}
        """, keys: ["granted_at", "purchase_key"], shape: [.micros, .text])
}
