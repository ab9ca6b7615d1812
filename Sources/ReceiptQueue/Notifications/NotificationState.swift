import Foundation
import Postgres

/// Where one notification stands (for `receiptq notifications test` and ops): nil when it was
/// never stored.
public enum NotificationState {
    static let sql = "SELECT state, outcome FROM receiptq.notifications WHERE notification_uuid = $1"

    public static func run(_ uuid: UUID, on connection: PostgresConnection) throws -> (state: String, outcome: String?)? {
        guard let row = try connection.query(sql, [uuid]).first else { return nil }
        return (try row.decode("state"), try row.decodeIfPresent("outcome"))
    }
}
