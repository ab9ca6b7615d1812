import Foundation

/// The notifications Apple would send for each change, built, signed and handed to
/// `FakeNotifications`.
extension FakeServerAPI {
    /// Sends `type` about `purchase` (signed transaction, and renewal info for a subscription).
    func notify(_ type: String, subtype: String? = nil, about purchase: FakePurchase, consumptionRequestReason: String? = nil) {
        let now = self.now()
        send(type, subtype: subtype, data: notificationData(about: purchase, at: now, consumptionRequestReason: consumptionRequestReason),
             environment: purchase.environment, transactionId: purchase.transactionId, customer: purchase.customer, testToken: nil, now: now)
    }

    /// The `signedPayload` Apple would send about `purchase` as it stands, signed at `signedAt`,
    /// without sending it: for tests that deliver notifications late, twice or out of order.
    public func signedNotification(_ type: String, subtype: String? = nil, about purchase: FakePurchase, signedAt: Date,
                                   uuid: String = UUID().uuidString.lowercased()) -> String {
        signer.sign(FakeNotificationPayload(notificationType: type, subtype: subtype, notificationUUID: uuid, version: "2.0",
                                            signedDate: FakePurchases.milliseconds(signedAt),
                                            data: notificationData(about: purchase, at: signedAt, consumptionRequestReason: nil)))
    }

    private func notificationData(about purchase: FakePurchase, at date: Date, consumptionRequestReason: String?) -> FakeNotificationPayload.Data {
        var data = FakeNotificationPayload.Data(
            appAppleId: configuration.appAppleId, bundleId: configuration.bundleId, bundleVersion: "1",
            environment: purchase.environment.rawValue, signedTransactionInfo: signer.signTransaction(purchase, signedAt: date))
        if purchase.isSubscription {
            data.signedRenewalInfo = signer.signRenewalInfo(purchase, signedAt: date)
            data.status = Self.subscriptionStatus(purchase, now: date)
        }
        data.consumptionRequestReason = consumptionRequestReason
        return data
    }

    /// Sends a TEST notification and returns its token; throws when the environment has no URL.
    public func sendTestNotification(environment: FakeEnvironment) throws -> String {
        guard configuration.notificationURL(for: environment) != nil else {
            throw FakeAdminError.notFound("no notification URL for \(environment.rawValue)")
        }
        let now = self.now()
        let token = UUID().uuidString.lowercased() + "_" + String(FakePurchases.milliseconds(now))
        let data = FakeNotificationPayload.Data(appAppleId: configuration.appAppleId, bundleId: configuration.bundleId,
                                                bundleVersion: "1", environment: environment.rawValue)
        send("TEST", subtype: nil, data: data, environment: environment, transactionId: nil, customer: nil, testToken: token, now: now)
        return token
    }

    private func send(_ type: String, subtype: String?, data: FakeNotificationPayload.Data, environment: FakeEnvironment,
                      transactionId: String?, customer: String?, testToken: String?, now: Date) {
        send(FakeNotificationPayload(notificationType: type, subtype: subtype, notificationUUID: UUID().uuidString.lowercased(),
                                     version: "2.0", signedDate: FakePurchases.milliseconds(now), data: data),
             environment: environment, transactionId: transactionId, customer: customer, testToken: testToken)
    }

    /// Signs `payload` and hands it to the sender, which POSTs it to the environment's URL.
    func send(_ payload: FakeNotificationPayload, environment: FakeEnvironment, transactionId: String?, customer: String?,
              testToken: String? = nil) {
        notifications.submit(FakeSentNotification(
            notificationUUID: payload.notificationUUID, notificationType: payload.notificationType, subtype: payload.subtype,
            environment: environment, transactionId: transactionId, customer: customer, signedPayload: signer.sign(payload),
            createdAt: payload.signedDate, attempts: [], delivered: false, finished: false, testNotificationToken: testToken))
    }
}
