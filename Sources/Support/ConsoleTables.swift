/// What each operations table of the console shows: its columns in the order an operator reads
/// them (what, how many, since when; bookkeeping last), under labels a person reads. One spec per
/// table, named after its query (`ConsoleQueries`); a key a spec does not name is not shown.
/// The customer's story has its own (`ConsoleStoryTables`).
enum ConsoleTables {
    typealias C = ConsoleColumn

    static let queueDepth = [
        C("state", "State", .state), C("jobs", "Jobs", .number),
        C("ready", "Ready", .number, help: "queued or timed out: due now; verifying: lease still held"),
        C("delayed", "Delayed", .number,
          help: "queued or timed out: waiting for their retry time; verifying: lease expired (the scheduler requeues them)"),
    ]
    static let queueHealth = [
        C("oldest_ready_age", "Oldest ready", .seconds, help: "how long the oldest job due now has waited"),
        C("ready", "Ready", .number), C("verifying", "Verifying", .number), C("retrying", "Retrying", .number),
        C("expired_leases", "Expired leases", .number),
        C("finished_last_minute", "Finished (1 min)", .number), C("finished_last_hour", "Finished (1 h)", .number),
        C("failed_last_hour", "Failed (1 h)", .number), C("rejected_last_hour", "Rejected (1 h)", .number),
        C("failure_rate_last_hour", "Failure rate (1 h)", .percent),
        C("notify_queue_usage", "NOTIFY queue", .percent, help: "PostgreSQL's notification queue in use (LISTEN clients falling behind)"),
    ]
    static let failureSummary = [
        C("state", "State", .state), C("jobs", "Jobs", .number), C("apple_status", "Apple status", .code),
        C("reason", "Reason", .prose), C("last_seen", "Last seen", .time),
    ]
    static let notificationHealth = [
        C("environment", "Environment"), C("last_received_at", "Last received", .time),
        C("open", "Open", .number), C("oldest_open_since", "Oldest open", .time),
        C("failed", "Failed", .number), C("quarantined", "Quarantined", .number), C("oldest_quarantined_since", "Oldest quarantined", .time),
        C("recovered_from_history", "Recovered from history", .number),
        C("history_checked_through", "History checked through", .time), C("history_last_run_at", "History last run", .time),
        C("history_last_error", "History last error", .prose),
        C("consumption_requests_open", "Consumption requests open", .number),
    ]
    static let webhookHealth = [
        C("endpoint_id", "Endpoint", .code), C("url", "URL", .prose), C("enabled", "Enabled", .flag(yes: "enabled", no: "disabled")),
        C("pending", "Pending", .number), C("oldest_pending_since", "Oldest pending", .time),
        C("failed", "Failed", .number), C("last_delivered_at", "Last delivered", .time),
    ]
    static let consumption = [C("state", "State", .state), C("requests", "Requests", .number)]
    static let workers = [
        C("worker", "Worker", .code),
        C("live", "Status", .flag(yes: "live", no: "silent"), help: "live: a heartbeat within three intervals"),
        C("host", "Host", .code), C("pid", "PID", .code), C("leased_jobs", "Leased jobs", .number),
        C("beat_at", "Last heartbeat", .time), C("interval_seconds", "Beats every", .seconds), C("started_at", "Started", .time),
    ]
    static let endpoints = [
        C("id", "Endpoint", .code), C("url", "URL", .prose), C("event_types", "Event types", .list),
        C("enabled", "Enabled", .flag(yes: "enabled", no: "disabled")), C("created_at", "Created", .time), C("updated_at", "Updated", .time),
    ]
    static let failedDeliveries = [
        C("endpoint_id", "Endpoint", .code), C("event_sequence", "Event", .code), C("user_id", "Customer", .link(.customer)),
        C("attempts", "Attempts", .number), C("last_status", "Last HTTP status", .code), C("last_error", "Last error", .prose),
        C("created_at", "Created", .time),
    ]
    static let troubledNotifications = [
        C("notification_type", "Type"), C("subtype", "Subtype"), C("state", "State", .state),
        C("original_transaction_id", "Purchase", .link(.purchase)), C("environment", "Environment"),
        C("attempts", "Attempts", .number), C("last_error", "Last error", .prose), C("received_at", "Received", .time),
        C("notification_uuid", "Notification", .code),
    ]
    static let rateBudget = [
        C("endpoint", "Endpoint", .code), C("environment", "Environment"), C("bundle_id", "Bundle", .code),
        C("paused", "State", .flag(yes: "paused", no: "running")), C("paused_until", "Paused until", .time),
        C("tokens_now", "Tokens now", .number), C("capacity", "Capacity", .number), C("rate_per_second", "Rate (per s)", .number),
        C("granted_total", "Granted", .number), C("pauses_total", "Pauses", .number),
    ]
    static let failures = [
        C("id", "Job", .link(.job)), C("state", "State", .state), C("kind", "Kind"), C("user_id", "Customer", .link(.customer)),
        C("transaction_id", "Transaction", .code), C("product_id", "Product", .code), C("attempts", "Attempts", .number),
        C("apple_status", "Apple status", .code), C("reason", "Reason", .prose), C("at", "When", .time),
    ]
    /// The audit log page; the customer's and purchase's audit sections are `ConsoleStoryTables.audit`.
    static let audit = [
        C("at", "When", .time), C("actor", "Operator", .code), C("action", "Action", .code), C("subject", "Subject", .link(.subject)),
        C("why", "Why", .prose), C("before", "Before", .json), C("after", "After", .json), C("login", "Database login", .code),
        C("id", "#", .code),
    ]
}
