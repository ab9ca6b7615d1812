import Foundation

/// A decoded App Store Server Notification V2 (`{"signedPayload": JWS}`). The transaction and
/// renewal info inside `data` (and the app transaction inside `appData`) are JWS themselves and
/// must be verified on their own. Which app and environment it is for lives, by type, in `data`,
/// `summary` (RENEWAL_EXTENSION SUMMARY), `externalPurchaseToken` (EXTERNAL_PURCHASE_TOKEN) or
/// `appData` (RESCIND_CONSENT) — read in that order, as Apple's libraries read them.
public struct NotificationPayload: SignedPayload, Codable, Hashable {
    /// For example `REFUND`, `REVOKE`, `DID_RENEW`, `EXPIRED`, `CONSUMPTION_REQUEST`, `TEST`.
    public var notificationType: String?
    public var subtype: String?
    /// Unique per notification: Apple's retries repeat it, so it is the deduplication key.
    public var notificationUUID: String?
    public var version: String?
    public var signedDate: Int64?
    public var data: NotificationData?
    /// Present instead of `data` for summaries of subscription renewal date extensions.
    public var summary: NotificationSummary?
    /// Present instead of `data` for EXTERNAL_PURCHASE_TOKEN.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// Present instead of `data` for RESCIND_CONSENT.
    public var appData: NotificationAppData?

    public var bundleId: String? { data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId ?? appData?.bundleId }
    public var environment: AppStoreEnvironment? {
        data?.environment ?? summary?.environment ?? externalPurchaseToken?.environment ?? appData?.environment
    }
    public var appAppleId: Int64? { data?.appAppleId ?? summary?.appAppleId ?? externalPurchaseToken?.appAppleId ?? appData?.appAppleId }
    public static var requiredClaims: SignedPayloadClaims { [.bundleId, .environment, .appAppleId] }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        notificationType = c.lenient(.notificationType)
        subtype = c.lenient(.subtype)
        notificationUUID = c.lenient(.notificationUUID)
        version = c.lenient(.version)
        signedDate = c.lenient(.signedDate)
        data = c.lenient(.data)
        summary = c.lenient(.summary)
        externalPurchaseToken = c.lenient(.externalPurchaseToken)
        appData = c.lenient(.appData)
    }
}

/// EXTERNAL_PURCHASE_TOKEN's payload: a token the app's External Purchase link created. It names
/// no environment; Apple's libraries read a sandbox one by its id's `SANDBOX` prefix.
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    public var externalPurchaseId: String?
    public var tokenCreationDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?

    public var environment: AppStoreEnvironment { externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        externalPurchaseId = c.lenient(.externalPurchaseId)
        tokenCreationDate = c.lenient(.tokenCreationDate)
        appAppleId = c.lenient(.appAppleId)
        bundleId = c.lenient(.bundleId)
    }
}

/// RESCIND_CONSENT's payload: the app, and the customer's signed app transaction.
public struct NotificationAppData: Codable, Hashable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: AppStoreEnvironment?
    /// A JWS: verify it as an `AppTransactionPayload`.
    public var signedAppTransactionInfo: String?

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appAppleId = c.lenient(.appAppleId)
        bundleId = c.lenient(.bundleId)
        environment = c.lenient(.environment)
        signedAppTransactionInfo = c.lenient(.signedAppTransactionInfo)
    }
}

/// The app and the signed transaction a notification is about.
public struct NotificationData: Codable, Hashable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var environment: AppStoreEnvironment?
    /// A JWS: verify it with `SignedDataVerifier.verify(_:as: TransactionPayload.self)`.
    public var signedTransactionInfo: String?
    /// A JWS: verify it with `SignedDataVerifier.verify(_:as: RenewalInfoPayload.self)`.
    public var signedRenewalInfo: String?
    /// Subscription status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    public var consumptionRequestReason: String?

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appAppleId = c.lenient(.appAppleId)
        bundleId = c.lenient(.bundleId)
        bundleVersion = c.lenient(.bundleVersion)
        environment = c.lenient(.environment)
        signedTransactionInfo = c.lenient(.signedTransactionInfo)
        signedRenewalInfo = c.lenient(.signedRenewalInfo)
        status = c.lenient(.status)
        consumptionRequestReason = c.lenient(.consumptionRequestReason)
    }
}

/// The outcome of a bulk subscription renewal date extension.
public struct NotificationSummary: Codable, Hashable, Sendable {
    public var requestIdentifier: String?
    public var environment: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestIdentifier = c.lenient(.requestIdentifier)
        environment = c.lenient(.environment)
        appAppleId = c.lenient(.appAppleId)
        bundleId = c.lenient(.bundleId)
        productId = c.lenient(.productId)
        storefrontCountryCodes = c.lenient(.storefrontCountryCodes)
        succeededCount = c.lenient(.succeededCount)
        failedCount = c.lenient(.failedCount)
    }
}
