import Foundation

/// What `POST /fake/admin/notify` sends: any notification type Apple sends, in the shape Apple
/// sends it, so a receiver can be tested against every one.
public struct FakeNotificationRequest: Codable, Sendable, Equatable {
    public var notificationType: String
    public var subtype: String?
    /// The purchase it is about (its signed transaction and, for a subscription, renewal info go
    /// in `data`); RESCIND_CONSENT uses its customer's app transaction. Optional for types
    /// without one.
    public var transactionId: String?
    /// Default: production (or the transaction's).
    public var environment: String?
    /// Sign it for another app: a notification routed here by mistake, which a receiver must keep
    /// rather than refuse (Apple does not retry a 4xx). Default: the fake's bundle id.
    public var bundleId: String?

    public init(notificationType: String, subtype: String? = nil, transactionId: String? = nil, environment: String? = nil,
                bundleId: String? = nil) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.transactionId = transactionId
        self.environment = environment
        self.bundleId = bundleId
    }
}

extension FakeServerAPI {
    /// Sends the notification `request` describes, as Apple would, and returns its UUID:
    /// EXTERNAL_PURCHASE_TOKEN with `externalPurchaseToken`, RESCIND_CONSENT with `appData` (the
    /// customer's signed app transaction), RENEWAL_EXTENSION SUMMARY with `summary`, every other
    /// type with `data` (about the purchase when one is named).
    public func sendNotification(_ request: FakeNotificationRequest) throws -> String {
        let (payload, environment, purchase) = try notification(request)
        send(payload, environment: environment, transactionId: purchase?.transactionId, customer: purchase?.customer)
        return payload.notificationUUID
    }

    /// The `signedPayload` `sendNotification` would send, without sending it: for tests that
    /// deliver it themselves (twice, late, to a receiver configured otherwise).
    public func sendableNotification(_ request: FakeNotificationRequest) throws -> String {
        signer.sign(try notification(request).payload)
    }

    private func notification(_ request: FakeNotificationRequest) throws
        -> (payload: FakeNotificationPayload, environment: FakeEnvironment, purchase: FakePurchase?) {
        let now = self.now()
        let milliseconds = FakePurchases.milliseconds(now)
        let purchase = try request.transactionId.map { id in
            guard let found = purchases.all().last(where: { $0.transactionId == id }) else {
                throw FakeAdminError.notFound("no transaction \(id)")
            }
            return found
        }
        let environment: FakeEnvironment = try request.environment.map {
            guard let value = FakeEnvironment(rawValue: $0) else { throw FakeAdminError.badRequest("environment must be Production or Sandbox") }
            return value
        } ?? purchase?.environment ?? .production
        let bundleId = request.bundleId ?? configuration.bundleId
        var payload = FakeNotificationPayload(notificationType: request.notificationType, subtype: request.subtype,
                                              notificationUUID: UUID().uuidString.lowercased(), version: "2.0", signedDate: milliseconds)
        switch (request.notificationType, request.subtype) {
        case ("EXTERNAL_PURCHASE_TOKEN", _):
            let prefix = environment == .sandbox ? "SANDBOX_" : ""
            payload.externalPurchaseToken = .init(externalPurchaseId: prefix + UUID().uuidString.lowercased(), tokenCreationDate: milliseconds,
                                                  appAppleId: configuration.appAppleId, bundleId: bundleId)
        case ("RESCIND_CONSENT", _):
            guard let id = request.transactionId, let app = purchases.appTransaction(for: id, in: environment) else {
                throw FakeAdminError.badRequest("RESCIND_CONSENT names a customer by one of their transactions (transactionId)")
            }
            payload.appData = .init(appAppleId: configuration.appAppleId, bundleId: bundleId, environment: environment.rawValue,
                                    signedAppTransactionInfo: signer.signAppTransaction(app, appAppleId: configuration.appAppleId, signedAt: now))
        case ("RENEWAL_EXTENSION", "SUMMARY"):
            payload.summary = .init(requestIdentifier: UUID().uuidString.lowercased(), environment: environment.rawValue,
                                    appAppleId: configuration.appAppleId, bundleId: bundleId, productId: purchase?.productId ?? "com.example.monthly",
                                    storefrontCountryCodes: ["USA"], succeededCount: 1, failedCount: 0)
        default:
            var data = FakeNotificationPayload.Data(appAppleId: configuration.appAppleId, bundleId: bundleId, bundleVersion: "1",
                                                    environment: environment.rawValue)
            if let purchase {
                data.signedTransactionInfo = signer.signTransaction(purchase, signedAt: now)
                if purchase.isSubscription {
                    data.signedRenewalInfo = signer.signRenewalInfo(purchase, signedAt: now)
                    data.status = Self.subscriptionStatus(purchase, now: now)
                }
            }
            if request.notificationType == "CONSUMPTION_REQUEST" { data.consumptionRequestReason = "UNINTENDED_PURCHASE" }
            payload.data = data
        }
        return (payload, environment, purchase)
    }
}
