import Foundation

/// A decoded signed app transaction (`JWSAppTransaction`): the customer's download of the app,
/// one per Apple Account (and per family member). RESCIND_CONSENT carries it in `appData`; Get
/// App Transaction Info answers it. Its environment is `receiptType`.
public struct AppTransactionPayload: SignedPayload, Codable, Hashable {
    /// Unique per Apple Account and app, stable across devices, re-downloads and refunds.
    public var appTransactionId: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    /// `Production`, `Sandbox`, …: the environment, in Apple's app-transaction spelling.
    public var receiptType: AppStoreEnvironment?
    public var applicationVersion: String?
    public var originalApplicationVersion: String?
    public var originalPurchaseDate: Int64?
    public var originalPlatform: String?
    public var signedDate: Int64?

    public var environment: AppStoreEnvironment? { receiptType }
    public static var requiredClaims: SignedPayloadClaims { [.bundleId, .environment] }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appTransactionId = c.lenient(.appTransactionId)
        bundleId = c.lenient(.bundleId)
        appAppleId = c.lenient(.appAppleId)
        receiptType = c.lenient(.receiptType)
        applicationVersion = c.lenient(.applicationVersion)
        originalApplicationVersion = c.lenient(.originalApplicationVersion)
        originalPurchaseDate = c.lenient(.originalPurchaseDate)
        originalPlatform = c.lenient(.originalPlatform)
        signedDate = c.lenient(.signedDate)
    }
}
