import Foundation

/// The fake's state, changed from Swift or through `/fake/admin/…` (JSON in, JSON out; bad input
/// gets a 4xx with `{"error": "…"}`):
///
/// | request | does | notification |
/// |---|---|---|
/// | `POST /fake/admin/purchases` `FakePurchaseRequest` (`orderId` joins an order, `storefront`) | buys | `ONE_TIME_CHARGE`, or `SUBSCRIBED`/`INITIAL_BUY` |
/// | `POST /fake/admin/renew` `{originalTransactionId, environment?, expiresInSeconds?}` | next period (a waiting downgrade takes effect) | `DID_RENEW` (`BILLING_RECOVERY` after a billing failure) |
/// | `POST /fake/admin/subscription` `FakeSubscriptionChange` `{originalTransactionId, action, productId?, graceDays?, reason?, consent?}` | upgrade, downgrade, cancel-downgrade, auto-renew-off/on, billing-failure, grace-expired, expire, price-increase | `DID_CHANGE_RENEWAL_PREF`, `DID_CHANGE_RENEWAL_STATUS`, `DID_FAIL_TO_RENEW`, `GRACE_PERIOD_EXPIRED`, `EXPIRED`, `PRICE_INCREASE` |
/// | `POST /fake/admin/refund` `{transactionId, environment?, reason?}` | revokes | `REFUND` |
/// | `POST /fake/admin/revoke` `{transactionId, environment?}` | revokes (family sharing ended) | `REVOKE` |
/// | `POST /fake/admin/family-share` `{transactionId, customer, environment?}` | a `FAMILY_SHARED` copy | `ONE_TIME_CHARGE`/`SUBSCRIBED` |
/// | `POST /fake/admin/consumption-request` `{transactionId, environment?}` | asks for consumption | `CONSUMPTION_REQUEST` |
/// | `POST /fake/admin/test-notification` `{environment?}` | a TEST notification | `TEST` |
/// | `POST /fake/admin/notify` `FakeNotificationRequest` `{notificationType, subtype?, transactionId?, environment?, bundleId?}` | nothing: `{notificationUUID}` | any type, in Apple's shape for it |
/// | `POST /fake/admin/signed-transaction` `{transactionId, environment?}` | what StoreKit 2 hands the app now: `{signedTransaction}` | – |
/// | `POST /fake/admin/app-transaction` `{customer, environment?, originalApplicationVersion?}` | the customer's `AppTransaction` as StoreKit 2 hands it to the app (made for a customer who only downloaded the app; the version sets what they first downloaded): `{appTransactionId, signedAppTransaction}` | – |
/// | `POST /fake/admin/receipts` `FakeReceipt` (JSON) | mints it as a real PKCS #7 app receipt signed by the test CA: `{"receipt_data"}`; with `?format=ios6`, its first purchase as an iOS 6 transaction receipt | – |
/// | `POST /fake/admin/faults` `FakeFault` | answers the next requests with a failure | – |
/// | `GET /fake/admin/purchases`, `/notifications` (`?customer=`, repeatable: theirs only), `/consumption` | lists | – |
extension FakeServerAPI {
    /// Buys, and sends the notification Apple would unless `request.notify` is false.
    public func buy(_ request: FakePurchaseRequest) throws -> FakePurchase {
        let purchase = try purchases.buy(request)
        if request.notify ?? true { notifyPurchase(purchase) }
        return purchase
    }

    /// The next period; after a billing failure it is Apple's retry succeeding (BILLING_RECOVERY).
    public func renew(originalTransactionId: String, environment: FakeEnvironment = .production, expiresInSeconds: Int64? = nil) throws -> FakePurchase {
        let recovered = purchases.latest(originalTransactionId: originalTransactionId, in: environment)?.isInBillingRetryPeriod == true
        let purchase = try purchases.renew(originalTransactionId: originalTransactionId, environment: environment, expiresInSeconds: expiresInSeconds)
        notify("DID_RENEW", subtype: recovered ? "BILLING_RECOVERY" : nil, about: purchase)
        return purchase
    }

    /// A change in a subscription's life (`FakeSubscriptionChange`), then Apple's notification for it.
    @discardableResult
    public func changeSubscription(_ change: FakeSubscriptionChange) throws -> FakeSubscriptionChangeResult {
        guard let environment = FakeEnvironment(loosely: change.environment ?? "Production") else {
            throw FakeAdminError.badRequest("environment must be Production or Sandbox")
        }
        let result = try purchases.change(change, environment: environment)
        notify(result.notificationType, subtype: result.subtype, about: result.purchase)
        return result
    }

    public func refund(transactionId: String, environment: FakeEnvironment = .production, reason: Int = 0) throws -> FakePurchase {
        let purchase = try purchases.revoke(transactionId: transactionId, environment: environment, reason: reason)
        notify("REFUND", about: purchase)
        return purchase
    }

    /// Apple reverses a refund it granted (REFUND_REVERSED).
    public func reverseRefund(transactionId: String, environment: FakeEnvironment = .production) throws -> FakePurchase {
        let purchase = try purchases.reinstate(transactionId: transactionId, environment: environment)
        notify("REFUND_REVERSED", about: purchase)
        return purchase
    }

    public func revoke(transactionId: String, environment: FakeEnvironment = .production) throws -> FakePurchase {
        let purchase = try purchases.revoke(transactionId: transactionId, environment: environment)
        notify("REVOKE", about: purchase)
        return purchase
    }

    public func familyShare(transactionId: String, with customer: String, environment: FakeEnvironment = .production) throws -> FakePurchase {
        let purchase = try purchases.familyShare(transactionId: transactionId, environment: environment, customer: customer)
        notifyPurchase(purchase)
        return purchase
    }

    /// Apple asks the app's server about a consumable a customer wants refunded (answer within 12 h).
    public func requestConsumption(transactionId: String, environment: FakeEnvironment = .production) throws {
        guard let purchase = purchases.transaction(transactionId, in: environment) else {
            throw FakeAdminError.notFound("no transaction \(transactionId) in \(environment.rawValue)")
        }
        notify("CONSUMPTION_REQUEST", about: purchase, consumptionRequestReason: "UNINTENDED_PURCHASE")
    }

    private func notifyPurchase(_ purchase: FakePurchase) {
        if purchase.isSubscription {
            notify("SUBSCRIBED", subtype: "INITIAL_BUY", about: purchase)
        } else {
            notify("ONE_TIME_CHARGE", about: purchase)
        }
    }

    /// The customer's signed `AppTransaction`, as StoreKit 2's `AppTransaction.shared` hands it
    /// to the app, and its id.
    public func signedAppTransaction(customer: String, environment: FakeEnvironment = .production,
                                     originalApplicationVersion: String? = nil) -> (appTransactionId: String, jws: String) {
        let app = purchases.downloadApp(customer: customer, environment: environment, originalApplicationVersion: originalApplicationVersion)
        return (app.appTransactionId, signer.signAppTransaction(app, appAppleId: configuration.appAppleId, signedAt: Date()))
    }

    private struct TransactionRequest: Decodable {
        var transactionId: String?
        var originalTransactionId: String?
        var environment: String?
        var reason: Int?
        var customer: String?
        var expiresInSeconds: Int64?
        var originalApplicationVersion: String?
    }

    func admin(method: String, path: String, query: [(String, String)] = [], body: [UInt8]) -> FakeServerAPIAnswer {
        do {
            switch (method, path) {
            case ("GET", "/fake/admin/purchases"): return .json(200, purchases.all())
            case ("GET", "/fake/admin/notifications"):
                // `?customer=` (repeatable): only those customers' (a test's own, among many).
                let customers = Set(query.filter { $0.0 == "customer" }.map(\.1))
                return .json(200, customers.isEmpty ? notifications.all() : notifications.all().filter { $0.customer.map(customers.contains) == true })
            case ("GET", "/fake/admin/consumption"): return .json(200, consumptionReports())
            case ("POST", "/fake/admin/purchases"): return .json(201, try buy(decode(FakePurchaseRequest.self, body)))
            case ("POST", "/fake/admin/receipts"):
                let receipt = try decode(FakeReceipt.self, body)
                let ios6 = query.contains { $0.0 == "format" && $0.1 == "ios6" }
                let minted = ios6 ? try mintTransactionReceipt(receipt) : try mintReceipt(receipt)
                return .json(201, ["receipt_data": minted])
            case ("POST", "/fake/admin/faults"):
                try inject(decode(FakeFault.self, body))
                return FakeServerAPIAnswer(status: 204)
            case ("POST", "/fake/admin/test-notification"):
                let request = body.isEmpty ? TransactionRequest() : try decode(TransactionRequest.self, body)
                return .json(201, ["testNotificationToken": try sendTestNotification(environment: try environment(request.environment))])
            case ("POST", "/fake/admin/renew"):
                let request = try decode(TransactionRequest.self, body)
                return .json(201, try renew(originalTransactionId: try required(request.originalTransactionId, "originalTransactionId"),
                                            environment: try environment(request.environment), expiresInSeconds: request.expiresInSeconds))
            case ("POST", "/fake/admin/subscription"):
                let result = try changeSubscription(decode(FakeSubscriptionChange.self, body))
                return .json(200, result.purchase)
            case ("POST", "/fake/admin/refund"):
                let request = try decode(TransactionRequest.self, body)
                return .json(200, try refund(transactionId: try required(request.transactionId, "transactionId"),
                                             environment: try environment(request.environment), reason: request.reason ?? 0))
            case ("POST", "/fake/admin/reverse-refund"):
                let request = try decode(TransactionRequest.self, body)
                return .json(200, try reverseRefund(transactionId: try required(request.transactionId, "transactionId"),
                                                    environment: try environment(request.environment)))
            case ("POST", "/fake/admin/revoke"):
                let request = try decode(TransactionRequest.self, body)
                return .json(200, try revoke(transactionId: try required(request.transactionId, "transactionId"),
                                             environment: try environment(request.environment)))
            case ("POST", "/fake/admin/family-share"):
                let request = try decode(TransactionRequest.self, body)
                return .json(201, try familyShare(transactionId: try required(request.transactionId, "transactionId"),
                                                  with: try required(request.customer, "customer"), environment: try environment(request.environment)))
            case ("POST", "/fake/admin/signed-transaction"):
                let request = try decode(TransactionRequest.self, body)
                let id = try required(request.transactionId, "transactionId")
                let environment = try environment(request.environment)
                guard let purchase = purchases.transaction(id, in: environment) else {
                    throw FakeAdminError.notFound("no transaction \(id) in \(environment.rawValue)")
                }
                return .json(200, ["signedTransaction": signer.signTransaction(purchase)])
            case ("POST", "/fake/admin/app-transaction"):
                let request = try decode(TransactionRequest.self, body)
                let signed = signedAppTransaction(customer: try required(request.customer, "customer"), environment: try environment(request.environment),
                                                  originalApplicationVersion: request.originalApplicationVersion)
                return .json(200, ["appTransactionId": signed.appTransactionId, "signedAppTransaction": signed.jws])
            case ("POST", "/fake/admin/notify"):
                return .json(201, ["notificationUUID": try sendNotification(decode(FakeNotificationRequest.self, body))])
            case ("POST", "/fake/admin/consumption-request"):
                let request = try decode(TransactionRequest.self, body)
                try requestConsumption(transactionId: try required(request.transactionId, "transactionId"), environment: try environment(request.environment))
                return FakeServerAPIAnswer(status: 202)
            default:
                return .adminError(FakeAdminError(404, "no admin route \(method) \(path)"))
            }
        } catch let error as FakeAdminError {
            return .adminError(error)
        } catch {
            return .adminError(.badRequest("request failed"))
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws -> T {
        guard body.count <= 65_536 else { throw FakeAdminError(413, "body over 64 KiB") }
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch DecodingError.keyNotFound(let key, _) {
            throw FakeAdminError.badRequest("missing field \(key.stringValue)")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            throw FakeAdminError.badRequest("wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))")
        } catch {
            throw FakeAdminError.badRequest("body is not the JSON object expected")
        }
    }

    private func required(_ value: String?, _ name: String) throws -> String {
        guard let value, !value.isEmpty else { throw FakeAdminError.badRequest("missing field \(name)") }
        return value
    }

    private func environment(_ text: String?) throws -> FakeEnvironment {
        guard let text else { return .production }
        guard let environment = FakeEnvironment(loosely: text) else { throw FakeAdminError.badRequest("environment must be Production or Sandbox") }
        return environment
    }
}
