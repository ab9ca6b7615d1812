import Postgres

/// Appends one event per job that reached a terminal state, inside the caller's transaction —
/// the transaction that made the change — and fans each out to a delivery per matching webhook
/// endpoint. An event so exists if and only if its change committed: a crash between the two is
/// impossible by construction.
///
/// The advisory lock taken first serialises appends until commit, so `events.sequence` is
/// assigned in commit order and a reader paging by sequence never skips an event that commits
/// late. Callers append last, just before committing, so the lock is held for the commit only.
/// Event types and verdicts come from Swift (`EventType`, `Verdict`): one home for each rule.
public enum AppendJobEvents {
    /// Advisory lock key (classid, objid) that orders event appends.
    static let lockKey: (Int32, Int32) = (0x5251_5551 & 0x7fff_ffff, 3)

    static let lockSQL = "SELECT pg_advisory_xact_lock($1, $2)"

    static let sql = """
        WITH appended AS (
            INSERT INTO receiptq.events (type, user_id, job_id, purchase_key, body)
            SELECT m.type, j.user_id, j.id, j.purchase_key, jsonb_strip_nulls(jsonb_build_object(
                       'job_id', j.id, 'status_url', '/v1/receipts/' || j.id, 'state', j.state, 'verdict', m.verdict,
                       'transaction_id', j.transaction_id, 'reason', j.outcome_reason, 'environment', j.apple_environment,
                       'purchase', CASE WHEN g.purchase_key IS NOT NULL THEN jsonb_build_object(
                           'purchase_key', g.purchase_key, 'transaction_id', g.transaction_id,
                           'original_transaction_id', g.original_transaction_id, 'product_id', g.product_id,
                           'quantity', g.quantity, 'environment', g.environment, 'ownership_type', g.ownership_type,
                           'order_id', g.order_id, 'expires_at', g.expires_date, 'granted_to_this_user', g.user_id = j.user_id) END))
            FROM receiptq.jobs j                                                    -- primary key
            JOIN unnest($2::text[], $3::text[], $4::text[]) AS m(state, type, verdict) ON m.state = j.state
            LEFT JOIN receiptq.grants g ON g.purchase_key = j.purchase_key          -- grants_pkey
            WHERE j.id = ANY($1::bigint[]) AND j.finished_at IS NOT NULL
            ORDER BY j.id
            RETURNING sequence, type, user_id
        )
        \(fanOutSQL)
        """

    /// The statement's tail that fans the events just appended (a CTE named `appended` returning
    /// sequence, type, user_id) out to one delivery per enabled endpoint that wants their type.
    /// Every statement appending events ends with it.
    static let fanOutSQL = """
        INSERT INTO receiptq.deliveries (endpoint_id, event_sequence, user_id)
        SELECT w.id, a.sequence, a.user_id
        FROM appended a
        JOIN receiptq.webhook_endpoints w ON w.enabled
             AND (w.event_types IS NULL OR a.type = ANY(w.event_types) OR split_part(a.type, '.', 1) || '.*' = ANY(w.event_types))
        """

    /// Takes the lock that orders event appends until commit; run just before a statement that
    /// appends events, as late in the transaction as possible.
    static func lockEventOrder(on connection: PostgresConnection) throws {
        try connection.query(lockSQL, [lockKey.0, lockKey.1])
    }

    /// Appends the events of `jobs` (those that are terminal; others are skipped). Run inside
    /// the transaction that ended them, as its last statement.
    public static func run(jobs: [Int64], on connection: PostgresConnection) throws {
        guard !jobs.isEmpty else { return }
        let terminal = JobState.allCases.filter(\.isTerminal)
        try lockEventOrder(on: connection)
        try connection.query(sql, [jobs, terminal.map(\.rawValue), terminal.map { EventType(terminal: $0).rawValue },
                                   terminal.map { Verdict($0).rawValue }])
    }
}
