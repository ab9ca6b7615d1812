import Foundation
import Postgres

/// Manual grants, revocations and transfers. Each is one call of a SECURITY DEFINER function
/// (`SQL/functions/support_*.sql`) that writes the ledger, the event backends receive and the
/// audit row together: the support role cannot write the ledger or the outbox any other way.
/// Each returns the audit row's id; refusals arrive as `SupportError`.
public enum SupportLedger {
    static let grantSQL = "SELECT receiptq.support_grant($1, $2, $3, $4, $5, $6, to_timestamp($7 / 1000.0)) AS audit"
    static let revokeSQL = "SELECT receiptq.support_revoke($1, $2, $3) AS audit"
    static let transferSQL = "SELECT receiptq.support_transfer($1, $2, $3, $4) AS audit"

    /// Product types a manual grant may name (`grants_product_type_check`).
    public static let productTypes: Set<String> = ["consumable", "non_consumable", "auto_renewable", "non_renewing"]

    /// Grants `productID` to `userID` by hand, keyed `manual:<reference>` (`grant.granted_manually`).
    /// `productType` is required; a subscription's access ends at `expiresAt` (required for
    /// `auto_renewable` and `non_renewing`, refused for one-time purchases: `support_grant`).
    public static func grant(_ action: SupportAction, userID: String, productID: String, reference: String, productType: String?,
                             expiresAt: Date? = nil, on connection: PostgresConnection) throws -> Int64 {
        guard let productType, productTypes.contains(productType) else {
            throw SupportError(.invalid, "product_type is required: one of \(productTypes.sorted().joined(separator: ", "))")
        }
        let expiresMs = expiresAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        return try explained {
            try connection.query(grantSQL, [action.actor, action.why, userID, productID, reference, productType, expiresMs])[0].decode("audit")
        }
    }

    /// When a manual grant's access ends: `expiresAt` as given, or `days` from `now` (1 to 3,650);
    /// never both. Nil when neither is given.
    public static func accessEnd(expiresAt: Date?, days: Int?, now: Date = Date()) throws -> Date? {
        switch (expiresAt, days) {
        case (.some, .some): throw SupportError(.invalid, "give expires_at or duration_days, not both")
        case (let date?, nil): return date
        case (nil, let days?):
            guard (1...3650).contains(days) else { throw SupportError(.invalid, "duration_days must be 1 to 3650") }
            return now.addingTimeInterval(Double(days) * 86_400)
        case (nil, nil): return nil
        }
    }

    /// Revokes a grant by hand (`grant.revoked`, manual: true); the row stays.
    public static func revoke(_ action: SupportAction, purchaseKey: String, on connection: PostgresConnection) throws -> Int64 {
        try explained { try connection.query(revokeSQL, [action.actor, action.why, purchaseKey])[0].decode("audit") }
    }

    /// Moves every grant of `originalTransactionID` (and its subscription rows) to `toUser`
    /// under the transfer policy (docs/support.md); `grant.transferred` to both accounts.
    public static func transfer(_ action: SupportAction, originalTransactionID: String, toUser: String,
                                on connection: PostgresConnection) throws -> Int64 {
        try explained { try connection.query(transferSQL, [action.actor, action.why, originalTransactionID, toUser])[0].decode("audit") }
    }

    static func explained<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw SupportError.from(error) ?? error
        }
    }
}
