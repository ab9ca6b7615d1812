import Foundation
import Postgres

/// Commits notifications in one statement (one commit for a batch, as the API's group commit
/// sends them), each in the state `NotificationLifecycle.arrival` gives it: `queued`, or
/// `quarantined` with its reason (Apple's, refused by this configuration). A notification already stored — Apple retried it, or the history recovery
/// found one that did arrive — changes nothing: `created` is false.
public enum EnqueueNotifications {
    /// A plain ordered insert from the batch: its plan does not depend on the batch's size, so
    /// it is prepared once per connection (parsing and planning it cost as much as running it
    /// for the dozen notifications a group commit brings). Which were stored now comes back as
    /// their UUIDs, matched to the input here rather than by a join whose plan would depend on
    /// the size.
    static let sql = """
        INSERT INTO receiptq.notifications (notification_uuid, notification_type, subtype, environment, signed_date,
                                            original_transaction_id, transaction_id, signed_payload, source, state, last_error)
        SELECT notification_uuid, notification_type, subtype, environment, to_timestamp(signed_ms / 1000.0),
               original_transaction_id, transaction_id, signed_payload, source, state, quarantine_reason
        FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[],
                    $9::text[], $10::text[], $11::text[]) WITH ORDINALITY
             AS i(notification_uuid, notification_type, subtype, environment, signed_ms, original_transaction_id,
                  transaction_id, signed_payload, source, quarantine_reason, state, ord)
        ORDER BY ord
        ON CONFLICT (notification_uuid) DO NOTHING
        RETURNING notification_uuid
        """

    /// Whether each notification was stored now (false: it was stored before), in input order.
    public static func run(_ notifications: [NewNotification], on connection: PostgresConnection) throws -> [Bool] {
        guard !notifications.isEmpty else { return [] }
        let rows = try connection.query(prepared: sql, [
            notifications.map(\.uuid), notifications.map(\.type), notifications.map(\.subtype), notifications.map(\.environment),
            notifications.map { Int64(($0.signedDate.timeIntervalSince1970 * 1000).rounded()) }, notifications.map(\.originalTransactionID),
            notifications.map(\.transactionID), notifications.map(\.signedPayload), notifications.map(\.source.rawValue),
            notifications.map(\.quarantineReason),
            notifications.map { NotificationLifecycle.arrival(quarantineReason: $0.quarantineReason).rawValue },
        ])
        var stored = Set(try rows.map { try $0.decode("notification_uuid", as: UUID.self) })
        // A UUID twice in one batch: the first stores it.
        return notifications.map { stored.remove($0.uuid) != nil }
    }
}
