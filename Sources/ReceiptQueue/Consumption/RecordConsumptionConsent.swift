import Foundation
import Postgres

/// Records whether a user consented to share consumption data with Apple (Apple refuses Send
/// Consumption Information without it, and ReceiptQueue never sends it without it). The latest
/// answer wins.
public enum RecordConsumptionConsent {
    static let sql = """
        INSERT INTO receiptq.consumption_consents AS c (user_id, consented, recorded_at) VALUES ($1, $2, now())
        ON CONFLICT (user_id) DO UPDATE SET consented = EXCLUDED.consented, recorded_at = EXCLUDED.recorded_at
        RETURNING recorded_at
        """

    /// When it was recorded.
    public static func run(userID: String, consented: Bool, on connection: PostgresConnection) throws -> Date {
        try connection.query(sql, [userID, consented])[0].decode("recorded_at")
    }
}
