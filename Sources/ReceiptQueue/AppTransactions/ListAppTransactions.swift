import Foundation
import Postgres

/// The app transactions a user submitted (one per environment the app was downloaded in),
/// production first.
public enum ListAppTransactions {
    static let sql = """
        SELECT \(AppTransactionRecord.columns) FROM receiptq.app_transactions WHERE user_id = $1
        ORDER BY environment, first_seen_at, app_transaction_id LIMIT 20
        """

    public static func run(userID: String, on connection: PostgresConnection) throws -> [AppTransactionRecord] {
        try connection.query(sql, [userID]).map(AppTransactionRecord.init)
    }
}
