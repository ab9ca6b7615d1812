import Foundation
import Postgres

/// Keeps a verified app transaction for the user who submitted it. The first user to submit an
/// app transaction owns it for good (DESIGN: Ownership): the same one under another account is
/// refused, so one paid download cannot entitle many accounts. The owner's newer signatures
/// update the version they run; the original version and date never change (Apple's do not).
public enum RecordAppTransaction {
    public enum Outcome: Sendable, Equatable {
        /// Stored for the first time.
        case created(AppTransactionRecord)
        /// Already this user's: the stored record (updated when this signature is newer).
        case kept(AppTransactionRecord)
        /// Another user's: nothing changed.
        case ownedByAnotherUser
    }

    static let upsertSQL = """
        INSERT INTO receiptq.app_transactions AS a (app_transaction_id, environment, user_id, bundle_id, original_application_version,
                                                    original_purchase_date, original_platform, application_version, signed_at)
        VALUES ($1, $2, $3, $4, $5, to_timestamp($6 / 1000.0), $7, $8, to_timestamp($9 / 1000.0))
        ON CONFLICT (app_transaction_id, environment) DO UPDATE
            SET application_version = EXCLUDED.application_version, signed_at = EXCLUDED.signed_at, updated_at = now()
            WHERE a.user_id = EXCLUDED.user_id AND a.signed_at < EXCLUDED.signed_at
        RETURNING \(AppTransactionRecord.columns), (xmax = 0) AS created
        """
    static let readSQL = """
        SELECT \(AppTransactionRecord.columns) FROM receiptq.app_transactions WHERE app_transaction_id = $1 AND environment = $2
        """

    /// - Parameters: dates in milliseconds since 1970, as Apple signs them.
    public static func run(_ record: AppTransactionRecord, originalPurchaseDateMilliseconds: Int64?, signedAtMilliseconds: Int64,
                           on connection: PostgresConnection) throws -> Outcome {
        try connection.transaction { connection in
            let written = try connection.query(upsertSQL, [
                record.appTransactionId, record.environment, record.userId, record.bundleId, record.originalApplicationVersion,
                originalPurchaseDateMilliseconds, record.originalPlatform, record.applicationVersion, signedAtMilliseconds,
            ])
            if let row = written.first {
                let stored = try AppTransactionRecord(row)
                return try row.decode("created", as: Bool.self) ? .created(stored) : .kept(stored)
            }
            // Not written: another user's, or this user's with a newer signature already kept.
            let stored = try AppTransactionRecord(try connection.query(readSQL, [record.appTransactionId, record.environment])[0])
            return stored.userId == record.userId ? .kept(stored) : .ownedByAnotherUser
        }
    }
}
