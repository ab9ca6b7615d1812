import Foundation
import Postgres

/// Claims due webhook deliveries of one endpoint under a lease, in order per user: only the
/// oldest pending delivery of each (endpoint, user) can be claimed, so a user's later event waits
/// until the earlier one is acknowledged (or given up). Different users go in parallel.
///
/// That delivery is marked `head` (migration 0039): the triggers of
/// `SQL/functions/track_delivery_heads.sql` move the mark as deliveries are appended, end, are
/// retried, rescued or re-driven (a head out with a deliverer keeps it until its lease ends). So
/// the claim reads the endpoint's due queued heads off `deliveries_due_idx` (run_at, sequence)
/// and stops at its limit: its cost does not grow with the backlog. `FOR UPDATE SKIP LOCKED` lets
/// any number of deliverers claim at once; the UPDATE re-checks `queued` and `head`, so a head
/// another deliverer took, or that moved, meanwhile is left alone.
public enum ClaimDeliveries {
    static let sql = """
        WITH ready AS (
            SELECT endpoint_id, event_sequence
            FROM receiptq.deliveries
            WHERE endpoint_id = $4 AND head AND state = 'queued' AND run_at <= now()          -- deliveries_due_idx
            ORDER BY run_at, event_sequence
            LIMIT $1
            FOR UPDATE SKIP LOCKED
        )
        UPDATE receiptq.deliveries AS d
        SET state = 'delivering', locked_by = $2, locked_until = now() + $3 * interval '1 millisecond', attempts = d.attempts + 1
        FROM ready r, receiptq.events e, receiptq.webhook_endpoints w
        WHERE d.endpoint_id = r.endpoint_id AND d.event_sequence = r.event_sequence AND d.state = 'queued' AND d.head
          AND e.sequence = d.event_sequence AND w.id = d.endpoint_id
        RETURNING d.endpoint_id, d.event_sequence, d.attempts, d.user_id, d.budget_from, e.id::text AS event_id, w.url,
                  to_json(w.secrets)::text AS secrets, e.body->>'request_id' AS request_id, e.trace_parent,
                  jsonb_build_object('id', e.id, 'sequence', e.sequence, 'type', e.type, 'created_at', e.created_at,
                                     'user_id', e.user_id, 'data', e.body)::text AS body
        """

    public static func run(endpoint: String, limit: Int, worker: String, lease: Duration,
                           on connection: PostgresConnection) throws -> [DeliveryLease] {
        guard limit > 0 else { return [] }
        return try connection.query(sql, [limit, worker, lease.milliseconds, endpoint]).map { row in
            DeliveryLease(endpointID: try row.decode("endpoint_id"), eventSequence: try row.decode("event_sequence"),
                          eventID: try row.decode("event_id"), attempt: try row.decode("attempts"), userID: try row.decode("user_id"),
                          body: Array(try row.decode("body", as: String.self).utf8), url: try row.decode("url"),
                          secrets: try JSONDecoder().decode([String].self, from: Data(try row.decode("secrets", as: String.self).utf8)),
                          budgetFrom: try row.decode("budget_from"), requestID: try row.decodeIfPresent("request_id"),
                          traceParent: try row.decodeIfPresent("trace_parent"))
        }
    }
}
