import Postgres

/// `receiptq.call_minutes` (migration 0040): each process's calls out per minute and target, added
/// to on conflict so that several beats of one minute, and a write retried after a failure, sum up.
public enum CallMinutes {
    static let addSQL = """
        INSERT INTO receiptq.call_minutes AS m (minute, target, process, calls, failures, latency_buckets, breaker)
        VALUES (to_timestamp($1), $2, $3, $4, $5, $6, $7)
        ON CONFLICT (minute, target, process) DO UPDATE SET
            calls = m.calls + EXCLUDED.calls,
            failures = m.failures + EXCLUDED.failures,
            latency_buckets = ARRAY(SELECT a + b FROM unnest(m.latency_buckets, EXCLUDED.latency_buckets) WITH ORDINALITY AS u(a, b, i) ORDER BY i),
            breaker = CASE WHEN 'open' IN (m.breaker, EXCLUDED.breaker) THEN 'open'
                           WHEN 'half-open' IN (m.breaker, EXCLUDED.breaker) THEN 'half-open' ELSE 'closed' END
        """

    /// Adds `rows` as `process`'s, in one transaction (all or none: a failed write is restored by the caller).
    public static func add(_ rows: [CallTally.Minute], process: String, on connection: PostgresConnection) throws {
        guard !rows.isEmpty else { return }
        try connection.transaction { connection in
            for row in rows {
                try connection.query(addSQL, [row.minute, row.target.rawValue, process, row.calls, row.failures,
                                              row.latencyBuckets, row.breaker.rawValue])
            }
        }
    }
}
