import Postgres

/// Only one scheduler acts at a time: the one whose database session holds a session-level
/// advisory lock. When its process dies, PostgreSQL ends the session and frees the lock, and a
/// standby's next attempt (every tick) takes over.
public enum SchedulerLeadership {
    /// Advisory lock key (classid, objid).
    public static let lockKey: (Int32, Int32) = (0x5251_5551 & 0x7fff_ffff, 1)

    /// Session advisory locks stack when taken twice, so a leader checks it already holds the
    /// lock instead of taking it again; CASE guarantees the order of evaluation.
    static let sql = """
        SELECT CASE
            WHEN EXISTS (SELECT 1 FROM pg_locks
                         WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
                           AND classid = $1::int::oid AND objid = $2::int::oid AND objsubid = 2)
            THEN true
            ELSE pg_try_advisory_lock($1, $2)
        END AS leader
        """

    /// True when this connection's session leads (now or already).
    public static func acquire(on connection: PostgresConnection) throws -> Bool {
        try connection.query(sql, [lockKey.0, lockKey.1])[0].decode("leader")
    }

    /// Gives leadership up (on graceful shutdown), so a standby takes over at its next tick.
    public static func release(on connection: PostgresConnection) throws {
        try connection.query("SELECT pg_advisory_unlock_all()")
    }
}
