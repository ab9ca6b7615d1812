import Postgres

/// Whether other workers heard from Apple's `environment` within the last `within`: jobs that
/// ended on Apple's answer (granted, already granted, rejected) that recently. A worker starting
/// into such a fleet skips its breaker's slow start — Apple is known to be up — while a cold
/// fleet keeps it. One index range scan (`jobs_finished_idx`), once per worker start.
public enum FleetAnsweredRecently {
    static let sql = """
        SELECT EXISTS (
            SELECT 1 FROM receiptq.jobs
            WHERE finished_at > now() - $1 * interval '1 millisecond'                        -- jobs_finished_idx
              AND state IN ('granted', 'already_granted', 'rejected') AND apple_environment = $2
        ) AS answered
        """

    public static func run(within: Duration, environment: String, on connection: PostgresConnection) throws -> Bool {
        try connection.query(sql, [within.milliseconds, environment])[0].decode("answered")
    }
}
