import Postgres

/// Manual grants, revocations and transfers. Each is one call of a SECURITY DEFINER function
/// (`SQL/functions/support_*.sql`) that writes the ledger, the event backends receive and the
/// audit row together: the support role cannot write the ledger or the outbox any other way.
/// Each returns the audit row's id; refusals arrive as `SupportError`.
public enum SupportLedger {
    static let grantSQL = "SELECT receiptq.support_grant($1, $2, $3, $4, $5, $6) AS audit"
    static let revokeSQL = "SELECT receiptq.support_revoke($1, $2, $3) AS audit"
    static let transferSQL = "SELECT receiptq.support_transfer($1, $2, $3, $4) AS audit"

    /// Product types a manual grant may name (`grants_product_type_check`).
    public static let productTypes: Set<String> = ["consumable", "non_consumable", "auto_renewable", "non_renewing"]

    /// Grants `productID` to `userID` by hand, keyed `manual:<reference>` (`grant.granted_manually`).
    public static func grant(_ action: SupportAction, userID: String, productID: String, reference: String, productType: String?,
                             on connection: PostgresConnection) throws -> Int64 {
        if let productType, !productTypes.contains(productType) {
            throw SupportError(.invalid, "product_type must be one of \(productTypes.sorted().joined(separator: ", "))")
        }
        return try explained { try connection.query(grantSQL, [action.actor, action.why, userID, productID, reference, productType])[0].decode("audit") }
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
