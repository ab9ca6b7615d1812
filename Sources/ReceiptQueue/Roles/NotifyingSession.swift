import Postgres

/// Who sent a NOTIFY. Any session may NOTIFY any channel — PostgreSQL has no privilege for it —
/// so a worker acts on `receiptq_apple_outage` (which opens its circuit breaker) only when the
/// sending backend (libpq reports its PID with each notification) belongs to a member of
/// `receiptq_worker`. Anyone else with a login could otherwise keep the fleet's breakers open.
///
/// `pg_stat_activity` shows every session's role to every role. A PID that is no longer there
/// (the sender disconnected) is untrusted: a worker's notice comes from its pool connection,
/// which outlives it. Superusers count as members of every role in PostgreSQL, and so here.
public enum NotifyingSession {
    static let sql = """
        SELECT coalesce(bool_or(pg_has_role(a.usesysid, $2, 'MEMBER')), false) AS member
        FROM pg_stat_activity a
        WHERE a.pid = $1 AND a.usesysid IS NOT NULL
        """

    /// Whether the session with backend PID `pid` is logged in as a member of `role`'s group.
    public static func isMember(pid: Int32, of role: ProcessRole, on connection: PostgresConnection) throws -> Bool {
        try connection.query(sql, [Int(pid), role.groupName])[0].decode("member")
    }
}
