import Foundation
import Postgres

/// What the ledger knows about a customer that an offer signature needs: whether they ever held a
/// subscription in a product's group (so whether an introductory offer is still theirs to have),
/// one of their own transactions to name in a StoreKit 2 signature, and who owns a transaction
/// the backend names (DESIGN: Ownership — a signature is never tied to another account's purchase).
public struct OfferHistory: Sendable, Equatable {
    /// The product's subscription group in the catalog (`receiptq products`); nil when the catalog
    /// does not know the product or gives it no group.
    public var subscriptionGroup: String?
    /// Whether the user owns any purchase of a product in that group, at any time, refunded or
    /// not (Apple: an introductory offer is for customers new to the group).
    public var subscribedInGroup: Bool
    /// The user's most recently decided purchase (its original transaction id): a transaction of
    /// theirs for StoreKit 2 signatures to name. nil when they own none.
    public var latestOriginalTransactionId: String?
    /// The owner of the named transaction's purchase; nil when none was named or the ledger does
    /// not know it.
    public var namedTransactionOwner: String?

    public init(subscriptionGroup: String?, subscribedInGroup: Bool, latestOriginalTransactionId: String?, namedTransactionOwner: String?) {
        self.subscriptionGroup = subscriptionGroup
        self.subscribedInGroup = subscribedInGroup
        self.latestOriginalTransactionId = latestOriginalTransactionId
        self.namedTransactionOwner = namedTransactionOwner
    }
}

public enum ReadOfferHistory {
    static let sql = """
        WITH target AS (SELECT subscription_group FROM receiptq.products WHERE product_id = $2),
        named AS (
            SELECT COALESCE((SELECT g.original_transaction_id FROM receiptq.grants g WHERE g.transaction_id = $3 LIMIT 1), $3) AS original
            WHERE $3 IS NOT NULL
        )
        SELECT (SELECT subscription_group FROM target) AS subscription_group,
               EXISTS (SELECT 1 FROM receiptq.owners o
                       JOIN receiptq.grants g ON g.original_transaction_id = o.original_transaction_id
                       JOIN receiptq.products p ON p.product_id = g.product_id
                       WHERE o.user_id = $1 AND p.subscription_group = (SELECT subscription_group FROM target)) AS subscribed_in_group,
               (SELECT o.original_transaction_id FROM receiptq.owners o WHERE o.user_id = $1
                ORDER BY o.decided_at DESC, o.original_transaction_id DESC LIMIT 1) AS latest_original_transaction_id,
               (SELECT o.user_id FROM receiptq.owners o JOIN named ON o.original_transaction_id = named.original) AS named_transaction_owner
        """

    /// - Parameters:
    ///   - productID: the product an offer is for.
    ///   - transactionID: a transaction the caller names (any period's, or an original); nil for none.
    public static func run(userID: String, productID: String, transactionID: String?, on connection: PostgresConnection) throws -> OfferHistory {
        let row = try connection.query(sql, [userID, productID, transactionID])[0]
        return OfferHistory(subscriptionGroup: try row.decodeIfPresent("subscription_group"), subscribedInGroup: try row.decode("subscribed_in_group"),
                            latestOriginalTransactionId: try row.decodeIfPresent("latest_original_transaction_id"),
                            namedTransactionOwner: try row.decodeIfPresent("named_transaction_owner"))
    }
}
