import Foundation

/// The JSON the fake signs, written from Apple's documentation of `JWSTransactionDecodedPayload`,
/// `JWSRenewalInfoDecodedPayload` and `responseBodyV2DecodedPayload` — independently of
/// `AppleSignedData`'s decoding models, so that a field the verifier misreads is not also
/// written wrongly here.
struct FakeJWSTransaction: Encodable {
    var transactionId: String
    var originalTransactionId: String
    var webOrderLineItemId: String?
    var bundleId: String
    var productId: String
    var subscriptionGroupIdentifier: String?
    var purchaseDate: Int64
    var originalPurchaseDate: Int64
    var expiresDate: Int64?
    var quantity: Int
    var type: String
    var appAccountToken: String?
    var inAppOwnershipType: String
    var signedDate: Int64
    var revocationReason: Int?
    var revocationDate: Int64?
    var environment: String
    var transactionReason: String
    var storefront: String
    var storefrontId: String
    var price: Int64
    var currency: String
    var appTransactionId: String
    var isUpgraded: Bool?
    var offerType: Int?
    var offerIdentifier: String?

    init(_ purchase: FakePurchase, bundleId: String, signedDate: Int64) {
        transactionId = purchase.transactionId
        originalTransactionId = purchase.originalTransactionId
        webOrderLineItemId = purchase.webOrderLineItemId
        self.bundleId = bundleId
        productId = purchase.productId
        subscriptionGroupIdentifier = purchase.subscriptionGroupIdentifier
        purchaseDate = purchase.purchaseDate
        originalPurchaseDate = purchase.originalPurchaseDate
        expiresDate = purchase.expiresDate
        quantity = purchase.quantity
        type = purchase.type
        appAccountToken = purchase.appAccountToken
        inAppOwnershipType = purchase.inAppOwnershipType
        self.signedDate = signedDate
        revocationReason = purchase.revocationReason
        revocationDate = purchase.revocationDate
        environment = purchase.environment.rawValue
        transactionReason = purchase.transactionReason
        storefront = purchase.storefront
        storefrontId = purchase.storefrontId
        price = purchase.price
        currency = purchase.currency
        appTransactionId = purchase.appTransactionId
        isUpgraded = purchase.isUpgraded == true ? true : nil
        offerType = purchase.offerType
        offerIdentifier = purchase.offerIdentifier
    }
}

struct FakeJWSRenewalInfo: Encodable {
    var originalTransactionId: String
    var autoRenewProductId: String
    var productId: String
    var autoRenewStatus: Int
    var signedDate: Int64
    var environment: String
    var recentSubscriptionStartDate: Int64
    var renewalDate: Int64?
    var appAccountToken: String?
    var appTransactionId: String
    var expirationIntent: Int?
    var isInBillingRetryPeriod: Bool?
    var gracePeriodExpiresDate: Int64?
    var priceIncreaseStatus: Int?

    init(_ latest: FakePurchase, signedDate: Int64) {
        originalTransactionId = latest.originalTransactionId
        autoRenewProductId = latest.autoRenewProductId ?? latest.productId
        expirationIntent = latest.expirationIntent
        isInBillingRetryPeriod = latest.isInBillingRetryPeriod
        gracePeriodExpiresDate = latest.gracePeriodExpiresDate
        priceIncreaseStatus = latest.priceIncreaseStatus
        productId = latest.productId
        autoRenewStatus = latest.autoRenewStatus ?? 0
        self.signedDate = signedDate
        environment = latest.environment.rawValue
        recentSubscriptionStartDate = latest.originalPurchaseDate
        renewalDate = latest.isRevoked ? nil : latest.expiresDate
        appAccountToken = latest.appAccountToken
        appTransactionId = latest.appTransactionId
    }
}

/// `JWSAppTransactionDecodedPayload` (Get App Transaction Info): the customer's app download.
/// The fake's app is at version "1"; a customer first downloaded it on iOS at their first purchase,
/// or as `FakePurchases.downloadApp` says (another original version, for a paid-to-free test).
struct FakeJWSAppTransaction: Encodable {
    var receiptType: String
    var appAppleId: Int64
    var bundleId: String
    var applicationVersion = "1"
    var versionExternalIdentifier: Int64 = 1
    var receiptCreationDate: Int64
    var originalPurchaseDate: Int64
    var originalApplicationVersion: String
    var deviceVerification: String
    var deviceVerificationNonce: String
    var appTransactionId: String
    var originalPlatform = "iOS"
    var signedDate: Int64

    init(_ app: FakePurchases.AppTransaction, appAppleId: Int64, bundleId: String, signedDate: Int64) {
        receiptType = app.environment.rawValue
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        receiptCreationDate = signedDate
        originalPurchaseDate = app.originalPurchaseDate
        originalApplicationVersion = app.originalApplicationVersion
        deviceVerification = Data((0..<48).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        deviceVerificationNonce = UUID().uuidString.lowercased()
        appTransactionId = app.appTransactionId
        self.signedDate = signedDate
    }
}

struct FakeNotificationPayload: Encodable {
    struct Data: Encodable {
        var appAppleId: Int64
        var bundleId: String
        var bundleVersion: String
        var environment: String
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var status: Int?
        var consumptionRequestReason: String?
    }

    /// EXTERNAL_PURCHASE_TOKEN's payload, instead of `data`.
    struct ExternalPurchaseToken: Encodable {
        var externalPurchaseId: String
        var tokenCreationDate: Int64
        var appAppleId: Int64
        var bundleId: String
    }

    /// RESCIND_CONSENT's payload, instead of `data`.
    struct AppData: Encodable {
        var appAppleId: Int64
        var bundleId: String
        var environment: String
        var signedAppTransactionInfo: String
    }

    /// RENEWAL_EXTENSION SUMMARY's payload, instead of `data`.
    struct Summary: Encodable {
        var requestIdentifier: String
        var environment: String
        var appAppleId: Int64
        var bundleId: String
        var productId: String
        var storefrontCountryCodes: [String]
        var succeededCount: Int64
        var failedCount: Int64
    }

    var notificationType: String
    var subtype: String?
    var notificationUUID: String
    var version: String
    var signedDate: Int64
    var data: Data?
    var summary: Summary?
    var externalPurchaseToken: ExternalPurchaseToken?
    var appData: AppData?
}
