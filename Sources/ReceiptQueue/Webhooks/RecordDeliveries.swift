import Foundation
import Postgres

/// Writes the ends of many delivery attempts in one statement, fenced like job completions: a
/// row changes only while it is still leased by this deliverer at the attempt named, so a late
/// answer after the lease expired and the delivery went again cannot overwrite the newer try.
public enum RecordDeliveries {
    static let sql = """
        UPDATE receiptq.deliveries AS d
        SET state = o.state,
            attempts = d.attempts - CASE WHEN o.give_back THEN 1 ELSE 0 END,
            run_at = now() + coalesce(o.delay_ms, 0) * interval '1 millisecond',
            locked_by = NULL,
            locked_until = NULL,
            last_status = coalesce(o.status, d.last_status),
            last_error = CASE WHEN o.give_back THEN d.last_error ELSE o.error END,
            delivered_at = CASE WHEN o.state = '\(DeliveryState.delivered.rawValue)' THEN now() END
        FROM unnest($2::text[], $3::bigint[], $4::int[], $5::text[], $6::bigint[], $7::int[], $8::text[], $9::bool[],
                    array_fill($1::text, ARRAY[cardinality($2::text[])]))
             AS o(endpoint_id, event_sequence, attempt, state, delay_ms, status, error, give_back, worker)
        WHERE d.endpoint_id = o.endpoint_id AND d.event_sequence = o.event_sequence      -- primary key
          AND d.locked_by = o.worker AND d.attempts = o.attempt   -- a join clause: see CompleteBatch
        RETURNING d.endpoint_id, d.event_sequence
        """

    /// Returns how many were written (the rest had lost their lease). Each end is written in the
    /// state `lifecycle` gives it: a retry past the deadline is `failed`.
    @discardableResult
    public static func run(_ ends: [(DeliveryLease, DeliveryResult)], worker: String, lifecycle: DeliveryLifecycle = DeliveryLifecycle(),
                           now: Date = Date(), on connection: PostgresConnection) throws -> Int {
        guard !ends.isEmpty else { return 0 }
        var states: [String] = [], delays: [Int64?] = [], statuses: [Int?] = [], errors: [String?] = [], giveBacks: [Bool] = []
        for (lease, result) in ends {
            let (end, delay, status, error): (DeliveryLifecycle.End, Int64?, Int?, String?) = switch result {
            case .delivered(let status): (.delivered, nil, status, nil)
            case .retry(let delay, let status, let error): (.retry, delay, status, error)
            case .failed(let status, let error): (.failed, nil, status, error)
            case .release: (.release, nil, nil, nil)
            }
            // `next` is total from `delivering`.
            let state = lifecycle.next(.delivering, on: .complete(end), facts: .init(budgetFrom: lease.budgetFrom), now: now) ?? .failed
            states.append(state.rawValue)
            delays.append(state == .queued ? delay : nil)
            statuses.append(status)
            errors.append(error)
            giveBacks.append(end == .release)
        }
        return try connection.query(sql, [
            worker, ends.map(\.0.endpointID), ends.map(\.0.eventSequence), ends.map(\.0.attempt), states, delays, statuses, errors, giveBacks,
        ]).count
    }
}
