import Postgres

/// Appends one row to the append-only audit log, inside the caller's transaction (the one that
/// made the change it records), and returns its id. `before` and `after` are JSON texts (nil: none).
/// The ledger's support functions write their own audit row (`SupportLedger`).
public enum RecordAudit {
    static let sql = """
        INSERT INTO receiptq.support_audit (actor, action, subject, why, before, after)
        VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)
        RETURNING id
        """

    public static func run(_ action: SupportAction, _ name: String, subject: String, before: String?, after: String?,
                           on connection: PostgresConnection) throws -> Int64 {
        try connection.query(sql, [action.actor, name, subject, action.why, before, after])[0].decode("id")
    }
}
