import Foundation
import Postgres

/// One row of the audit log as support reads it.
public struct AuditEntry: Sendable, Codable, Hashable {
    public var id: Int64
    public var at: Date
    public var actor: String
    public var login: String
    public var action: String
    public var subject: String
    public var why: String
    /// JSON texts, as recorded.
    public var before: String?
    public var after: String?
}

/// The audit log, newest first: all of it, or one subject's (`user:…`, `job:…`,
/// `original_transaction:…`, `fleet`, …).
public enum ListAudit {
    static let sql = """
        SELECT id, at, actor, login, action, subject, why, before::text AS before, after::text AS after
        FROM receiptq.support_audit
        WHERE ($1::text IS NULL OR subject = $1)                          -- support_audit_subject_idx
          AND ($2::text IS NULL OR action = $2)
        ORDER BY id DESC
        LIMIT $3
        """

    public static func run(subject: String? = nil, action: String? = nil, limit: Int = 100,
                           on connection: PostgresConnection) throws -> [AuditEntry] {
        try connection.query(sql, [subject, action, max(1, min(limit, 1000))]).map { row in
            AuditEntry(id: try row.decode("id"), at: try row.decode("at"), actor: try row.decode("actor"), login: try row.decode("login"),
                       action: try row.decode("action"), subject: try row.decode("subject"), why: try row.decode("why"),
                       before: try row.decodeIfPresent("before"), after: try row.decodeIfPresent("after"))
        }
    }
}
