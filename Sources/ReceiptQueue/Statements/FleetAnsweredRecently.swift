import Postgres

/// Whether other workers heard from Apple's `environment` within the last `within` — jobs that
/// ended on Apple's answer (granted, already granted, rejected) that recently — and Apple is not
/// failing now (`receiptq.claimable_work.apple_failing`: the last minute's attempts mostly ended
/// in retries and timeouts). A worker starting into such a fleet skips its breaker's slow start —
/// Apple is known to be up — while a cold fleet, or one in an outage that began within `within`,
/// keeps it. (Without the second condition a worker restarted 2 s into a 21002 storm started at
/// full rate into it: the chaos suite counted 126 requests after the storm's first 3 s, bound 83.)
/// Nor does it when any attempt went back to the queue for a retry within `within`: the answers
/// that arrive in an outage's first seconds were asked for before it, so "answered a moment ago"
/// alone still let a worker restarted 4 s into a 21002 storm start at full rate (86 requests
/// after the storm's first 3 s, bound 83). A restart into a fleet seeing retries pays one round
/// trip of slow start instead. A retry counts whether it is due later or due already: while the
/// breakers are open, a failed probe's job waits due and unclaimed, and a rule that read only
/// retries due later let a worker restarted 14 s into an outage (the last answers 8 s old) start
/// at full rate into the 21002 storm that followed (771 requests in the storm's first seconds).
/// A retry written within `within` is due after `now() - within`, so one range of
/// `jobs_retry_ready_idx` per kind finds it. Index range scans only, once per worker start.
public enum FleetAnsweredRecently {
    static let sql = """
        SELECT EXISTS (
            SELECT 1 FROM receiptq.jobs
            WHERE finished_at > now() - $1 * interval '1 millisecond'                        -- jobs_finished_idx
              AND state IN ('granted', 'already_granted', 'rejected') AND apple_environment = $2
        ) AND NOT EXISTS (
            SELECT 1 FROM receiptq.jobs
            WHERE state = 'queued' AND attempts > 0 AND kind = ANY($3::text[])               -- jobs_retry_ready_idx
              AND run_at > now() - $1 * interval '1 millisecond'
              AND updated_at > now() - $1 * interval '1 millisecond'
        ) AND NOT (SELECT apple_failing FROM receiptq.claimable_work) AS answered
        """

    public static func run(within: Duration, environment: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query(sql, [within.milliseconds, environment, JobKind.allCases.map(\.rawValue)])[0].decode("answered")
    }
}
