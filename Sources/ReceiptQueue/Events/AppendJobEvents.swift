import Postgres

/// Appends one event per job that reached a terminal state, inside the caller's transaction —
/// the transaction that made the change — through `receiptq.append_job_events`, which derives
/// each event from the job and its ledger row (`verdict.<verdict>` read like the status resource,
/// or `job.failed`); the `events_fan_out` trigger fans each out to a delivery per matching webhook
/// endpoint. An event so exists if and only if its change committed, and says what the ledger
/// says: no caller composes an event's type or verdict.
///
/// The function takes an advisory lock first that serialises appends until commit, so
/// `events.sequence` is assigned in commit order and a reader paging by sequence never skips an
/// event that commits late. Callers append last, just before committing.
public enum AppendJobEvents {
    /// Advisory lock key (classid, objid) that orders event appends (also taken by
    /// `receiptq.append_job_events`).
    static let lockKey: (Int32, Int32) = (0x5251_5551 & 0x7fff_ffff, 3)

    static let lockSQL = "SELECT pg_advisory_xact_lock($1, $2)"

    static let sql = "SELECT receiptq.append_job_events($1::bigint[]) AS appended"
    /// The scheduler's way: `job.failed` only, only for jobs its own transaction gave up.
    static let failedSQL = "SELECT receiptq.append_failed_job_events($1::bigint[]) AS appended"

    /// Takes the lock that orders event appends until commit; run just before a statement that
    /// appends events, as late in the transaction as possible.
    static func lockEventOrder(on connection: PostgresConnection) throws {
        try connection.query(prepared: lockSQL, [lockKey.0, lockKey.1])
    }

    /// Appends the events of `jobs` (those that are terminal; others are skipped). Run inside
    /// the transaction that ended them, as its last statement.
    public static func run(jobs: [Int64], on connection: PostgresConnection) throws {
        guard !jobs.isEmpty else { return }
        try connection.query(sql, [jobs])
    }

    /// The scheduler's append: `job.failed` for the jobs of `jobs` this transaction gave up.
    public static func runForGivenUp(jobs: [Int64], on connection: PostgresConnection) throws {
        guard !jobs.isEmpty else { return }
        try connection.query(failedSQL, [jobs])
    }
}
