import Foundation
import Postgres

/// A user's grants, newest first, a page at a time: what the backend delivered, and what a
/// heavy user's history looks like without reading all of it. Keyset pagination on
/// (granted_at, purchase_key) — the key is unique, so no row is skipped or repeated — served by
/// `grants_user_idx` (user_id, granted_at, purchase_key) read backwards: each page costs the
/// same whatever the history's length.
public enum ListGrants {
    static let columns = """
        transaction_id, original_transaction_id, purchase_key, job_id, user_id, product_id, quantity, purchase_date,
        expires_date, environment, ownership_type, product_type, order_id, unmatched, claimed_product_id, order_mismatch,
        revoked_at, revocation_reason, app_account_token, storefront, price, currency, granted_at, (extract(epoch FROM granted_at) * 1000000)::bigint AS granted_micros
        """
    static let firstPageSQL = """
        SELECT \(columns) FROM receiptq.grants
        WHERE user_id = $1                                                      -- grants_user_idx
        ORDER BY granted_at DESC, purchase_key DESC
        LIMIT $2
        """
    static let nextPageSQL = """
        SELECT \(columns) FROM receiptq.grants
        WHERE user_id = $1                                                      -- grants_user_idx
          AND (granted_at, purchase_key) < (timestamptz 'epoch' + $3 * interval '1 microsecond', $4)
        ORDER BY granted_at DESC, purchase_key DESC
        LIMIT $2
        """

    /// Where a page ends; the next page starts after it. Opaque to clients (`token`). The time
    /// is kept in PostgreSQL's own microseconds, so no rounding can skip or repeat a row.
    public struct Cursor: Sendable, Equatable {
        public var grantedAtMicros: Int64
        public var purchaseKey: String

        /// `<microseconds since 1970>.<purchase key>`, base64url: no state on the server.
        public var token: String {
            Data("\(grantedAtMicros).\(purchaseKey)".utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        public init(grantedAtMicros: Int64, purchaseKey: String) {
            self.grantedAtMicros = grantedAtMicros
            self.purchaseKey = purchaseKey
        }

        /// nil for a token this server did not make.
        public init?(token: String) {
            guard token.utf8.count <= 1200 else { return nil }
            var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8),
                  let dot = text.firstIndex(of: "."), let micros = Int64(text[..<dot]) else { return nil }
            let id = String(text[text.index(after: dot)...])
            guard !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { return nil }
            self.init(grantedAtMicros: micros, purchaseKey: id)
        }
    }

    public struct Page: Sendable, Equatable {
        public var grants: [Grant]
        /// Set when there may be more: pass it back for the next page.
        public var next: Cursor?
    }

    public static func run(userID: String, limit: Int, after cursor: Cursor? = nil, on connection: PostgresConnection) throws -> Page {
        let rows = if let cursor {
            try connection.query(nextPageSQL, [userID, limit, cursor.grantedAtMicros, cursor.purchaseKey])
        } else {
            try connection.query(firstPageSQL, [userID, limit])
        }
        let grants = try rows.map(Grant.init(row:))
        var next: Cursor?
        if grants.count == limit, let last = rows.last {
            next = Cursor(grantedAtMicros: try last.decode("granted_micros"), purchaseKey: try last.decode("purchase_key"))
        }
        return Page(grants: grants, next: next)
    }
}

/// One row of the ledger: a purchase granted to a user.
public struct Grant: Sendable, Equatable, Codable {
    public var transactionID: String
    public var originalTransactionID: String
    /// What makes it one purchase (see `receiptq.grants.purchase_key`).
    public var purchaseKey: String
    public var jobID: Int64
    public var userID: String
    /// Apple's product.
    public var productID: String
    public var quantity: Int
    public var purchaseDate: Date?
    public var expiresDate: Date?
    /// Production or Sandbox.
    public var environment: String
    /// PURCHASED or FAMILY_SHARED.
    public var ownershipType: String
    /// consumable, non_consumable, auto_renewable, non_renewing; nil: not known.
    public var productType: String?
    public var orderID: String?
    /// No registered order matched; granted anyway (the user paid).
    public var unmatched: Bool
    /// The product the client claimed, when it differed from Apple's.
    public var claimedProductID: String?
    /// The client's order was for another product (not fulfilled by this grant).
    public var orderMismatch: Bool
    public var revokedAt: Date?
    public var revocationReason: String?
    /// The order's UUID the app passed to StoreKit 2, when the transaction carried one.
    public var appAccountToken: UUID?
    /// Apple's storefront (three-letter country code), price in milliunits and ISO 4217 currency,
    /// when the signed transaction carried them.
    public var storefront: String?
    public var price: Int64?
    public var currency: String?
    public var grantedAt: Date

    init(row: PostgresRow) throws {
        transactionID = try row.decode("transaction_id")
        originalTransactionID = try row.decode("original_transaction_id")
        purchaseKey = try row.decode("purchase_key")
        jobID = try row.decode("job_id")
        userID = try row.decode("user_id")
        productID = try row.decode("product_id")
        quantity = try row.decode("quantity")
        purchaseDate = try row.decodeIfPresent("purchase_date")
        expiresDate = try row.decodeIfPresent("expires_date")
        environment = try row.decode("environment")
        ownershipType = try row.decode("ownership_type")
        productType = try row.decodeIfPresent("product_type")
        orderID = try row.decodeIfPresent("order_id")
        unmatched = try row.decode("unmatched")
        claimedProductID = try row.decodeIfPresent("claimed_product_id")
        orderMismatch = try row.decode("order_mismatch")
        revokedAt = try row.decodeIfPresent("revoked_at")
        revocationReason = try row.decodeIfPresent("revocation_reason")
        appAccountToken = try row.decodeIfPresent("app_account_token")
        storefront = try row.decodeIfPresent("storefront")
        price = try row.decodeIfPresent("price")
        currency = try row.decodeIfPresent("currency")
        grantedAt = try row.decode("granted_at")
    }
}
