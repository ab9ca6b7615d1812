import Foundation
import Postgres

/// Claims consumption requests to answer, earliest deadline first, only while their deadline is
/// ahead (one past it is never answered: the scheduler marks it expired), each with the ledger's
/// facts about its transaction and user. `FOR UPDATE SKIP LOCKED`: no two workers take one.
public enum ClaimConsumptionRequests {
    static let sql = """
        WITH claimed AS (
            UPDATE receiptq.consumption_requests AS c
            SET state = 'sending', locked_by = $2, locked_until = now() + $3 * interval '1 millisecond', attempts = c.attempts + 1
            WHERE c.notification_uuid IN (
                SELECT notification_uuid FROM receiptq.consumption_requests
                WHERE state = 'queued' AND run_at <= now() AND deadline > now()                 -- consumption_requests_ready_idx
                ORDER BY deadline
                LIMIT $1
                FOR UPDATE SKIP LOCKED)
            RETURNING c.*
        )
        SELECT c.notification_uuid, c.attempts, c.transaction_id, c.environment, c.deadline,
               coalesce(c.user_id, g.user_id) AS user_id, consent.consented,
               g.granted_at, g.revoked_at IS NOT NULL AS revoked, g.app_account_token,
               history.first_grant_at, coalesce(history.purchased, 0) AS dollars_purchased, coalesce(history.refunded, 0) AS dollars_refunded
        FROM claimed c
        LEFT JOIN LATERAL (SELECT * FROM receiptq.grants WHERE transaction_id = c.transaction_id      -- grants_transaction_idx
                           ORDER BY granted_at LIMIT 1) AS g ON true
        LEFT JOIN receiptq.consumption_consents consent ON consent.user_id = coalesce(c.user_id, g.user_id)
        LEFT JOIN LATERAL (SELECT min(granted_at) AS first_grant_at,
                                  sum(price) FILTER (WHERE currency = 'USD') / 1000.0 AS purchased,
                                  sum(price) FILTER (WHERE currency = 'USD' AND revoked_at IS NOT NULL) / 1000.0 AS refunded
                           FROM receiptq.grants WHERE user_id = coalesce(c.user_id, g.user_id)) AS history ON true
        ORDER BY c.deadline
        """

    public static func run(limit: Int, worker: String, lease: Duration, on connection: PostgresConnection) throws -> [ConsumptionLease] {
        try connection.query(sql, [limit, worker, lease.milliseconds]).map { row in
            ConsumptionLease(
                notificationUUID: try row.decode("notification_uuid"), attempt: try row.decode("attempts"),
                transactionID: try row.decode("transaction_id"), environment: try row.decode("environment"),
                deadline: try row.decode("deadline"), userID: try row.decodeIfPresent("user_id"),
                consented: try row.decodeIfPresent("consented"), grantedAt: try row.decodeIfPresent("granted_at"),
                revoked: try row.decodeIfPresent("revoked") ?? false, appAccountToken: try row.decodeIfPresent("app_account_token"),
                firstGrantAt: try row.decodeIfPresent("first_grant_at"),
                dollarsPurchased: try row.decode("dollars_purchased", as: Double.self),
                dollarsRefunded: try row.decode("dollars_refunded", as: Double.self))
        }
    }
}
