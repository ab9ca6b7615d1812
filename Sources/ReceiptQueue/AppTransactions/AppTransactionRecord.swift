import Foundation
import Postgres

/// A customer's app transaction as the ledger keeps it (`receiptq.app_transactions`).
public struct AppTransactionRecord: Sendable, Equatable, Encodable {
    public var appTransactionId: String
    /// `Production` or `Sandbox`.
    public var environment: String
    public var userId: String
    public var bundleId: String
    public var originalApplicationVersion: String?
    public var originalPurchaseDate: Date?
    public var originalPlatform: String?
    public var applicationVersion: String?
    public var signedAt: Date
    public var firstSeenAt: Date

    public init(appTransactionId: String, environment: String, userId: String, bundleId: String, originalApplicationVersion: String?,
                originalPurchaseDate: Date?, originalPlatform: String?, applicationVersion: String?, signedAt: Date, firstSeenAt: Date = Date()) {
        self.appTransactionId = appTransactionId
        self.environment = environment
        self.userId = userId
        self.bundleId = bundleId
        self.originalApplicationVersion = originalApplicationVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.originalPlatform = originalPlatform
        self.applicationVersion = applicationVersion
        self.signedAt = signedAt
        self.firstSeenAt = firstSeenAt
    }

    static let columns = """
        app_transaction_id, environment, user_id, bundle_id, original_application_version, original_purchase_date,
        original_platform, application_version, signed_at, first_seen_at
        """

    init(_ row: PostgresRow) throws {
        self.init(appTransactionId: try row.decode("app_transaction_id"), environment: try row.decode("environment"),
                  userId: try row.decode("user_id"), bundleId: try row.decode("bundle_id"),
                  originalApplicationVersion: try row.decodeIfPresent("original_application_version"),
                  originalPurchaseDate: try row.decodeIfPresent("original_purchase_date"),
                  originalPlatform: try row.decodeIfPresent("original_platform"),
                  applicationVersion: try row.decodeIfPresent("application_version"),
                  signedAt: try row.decode("signed_at"), firstSeenAt: try row.decode("first_seen_at"))
    }
}
