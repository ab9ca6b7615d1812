import AppleSignedData
import Crypto
import FakeAppStore
import Foundation
import Testing

/// The endpoints Apple's own library calls beyond the product's client, answered in process (no
/// HTTP): Apple's shapes, Apple's refusals, and state that later signed data shows.
@Suite("Fake Server API: orders, app account tokens, app transactions, extensions, consumption v2")
struct FakeServerAPIEndpointTests {
    let key = P256.Signing.PrivateKey()
    let fake: FakeServerAPI

    init() throws {
        fake = try FakeServerAPI(configuration: FakeServerAPIConfiguration(
            bundleId: "com.example.app", acceptedKeys: [FakeAPIKey(keyId: "KEY1", publicKey: key.publicKey)]))
    }

    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> (status: Int, json: [String: Any]) {
        let token = try AppStoreConnectTokenProvider(configuration: .init(
            key: AppStoreConnectKey(privateKey: key, keyId: "KEY1"), issuerId: "issuer", bundleId: "com.example.app")).token()
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        let answer = try #require(fake.answer(method: method, uri: "/production" + path, authorization: token.bearerHeaderValue,
                                              body: bytes, outage: nil))
        let json = answer.body.isEmpty ? [:] : (try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
        return (answer.status, json)
    }

    /// The claims of a JWS the fake signed (the signature is the verifier tests' business).
    private func claims(_ jws: Any?) throws -> [String: Any] {
        let parts = try #require(jws as? String).split(separator: ".")
        var base64 = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func errorCode(_ answer: (status: Int, json: [String: Any])) -> String {
        "\(answer.status) \(answer.json["errorCode"] as? Int ?? 0)"
    }

    private func subscription(customer: String = "alice", expiresIn: Int64 = 30 * 86_400, purchaseDate: Int64? = nil) throws -> FakePurchase {
        try fake.buy(FakePurchaseRequest(productId: "monthly", type: "Auto-Renewable Subscription", customer: customer,
                                         expiresInSeconds: expiresIn, purchaseDate: purchaseDate, notify: false))
    }

    private func extend(_ id: String, days: Int = 5, request: String = UUID().uuidString) throws -> (status: Int, json: [String: Any]) {
        try call("PUT", "/inApps/v1/subscriptions/extend/" + id, ["extendByDays": days, "extendReasonCode": 3, "requestIdentifier": request])
    }

    @Test func anOrderIdFindsEveryPurchaseOfTheOrderAndAnUnknownOneIsInvalid() throws {
        let first = try fake.buy(FakePurchaseRequest(productId: "coins", customer: "alice", notify: false))
        let second = try fake.buy(FakePurchaseRequest(productId: "sword", type: "Non-Consumable", customer: "alice", notify: false,
                                                      orderId: first.orderId))
        let found = try call("GET", "/inApps/v1/lookup/" + first.orderId)
        #expect(found.status == 200 && found.json["status"] as? Int == 0)
        let ids = try (found.json["signedTransactions"] as? [String] ?? []).map { try claims($0)["transactionId"] as? String }
        #expect(Set(ids.compactMap { $0 }) == [first.transactionId, second.transactionId])
        let missing = try call("GET", "/inApps/v1/lookup/MQNOSUCHONE")
        #expect(missing.status == 200 && missing.json["status"] as? Int == 1 && missing.json["signedTransactions"] == nil)
        #expect(throws: FakeAdminError.self) {
            try fake.buy(FakePurchaseRequest(productId: "coins", customer: "bob", notify: false, orderId: first.orderId))
        }
    }

    @Test func anAppAccountTokenSetOnTheOriginalShowsInLaterSignedData() throws {
        let purchase = try subscription()
        let renewal = try fake.renew(originalTransactionId: purchase.transactionId)
        let token = UUID().uuidString
        #expect(try call("PUT", "/inApps/v1/transactions/\(purchase.transactionId)/appAccountToken", ["appAccountToken": token]).status == 200)
        let info = try call("GET", "/inApps/v1/transactions/" + renewal.transactionId)
        #expect(try claims(info.json["signedTransactionInfo"])["appAccountToken"] as? String == token.lowercased())
        #expect(errorCode(try call("PUT", "/inApps/v1/transactions/\(renewal.transactionId)/appAccountToken", ["appAccountToken": token]))
                == "400 4000187", "a renewal's id is not an original transaction id")
        #expect(errorCode(try call("PUT", "/inApps/v1/transactions/\(purchase.transactionId)/appAccountToken", ["appAccountToken": "x"]))
                == "400 4000183")
        #expect(errorCode(try call("PUT", "/inApps/v1/transactions/404/appAccountToken", ["appAccountToken": token])) == "404 4040010")
        let shared = try fake.familyShare(transactionId: purchase.transactionId, with: "bob")
        #expect(errorCode(try call("PUT", "/inApps/v1/transactions/\(shared.transactionId)/appAccountToken", ["appAccountToken": token]))
                == "400 4000185")
    }

    @Test func anExtensionMovesTheExpiryOncePerRequestAndAtMostTwiceAYear() throws {
        let purchase = try subscription()
        let request = UUID().uuidString
        let first = try extend(purchase.transactionId, days: 5, request: request)
        let expected = try #require(purchase.expiresDate) + 5 * 86_400_000
        #expect(first.status == 200 && first.json["success"] as? Bool == true && first.json["effectiveDate"] as? Int64 == expected)
        #expect(try extend(purchase.transactionId, days: 5, request: request).json["effectiveDate"] as? Int64 == expected,
                "the same request identifier extends once")
        let info = try call("GET", "/inApps/v1/transactions/" + purchase.transactionId)
        #expect(try claims(info.json["signedTransactionInfo"])["expiresDate"] as? Int64 == expected)
        #expect(try extend(purchase.transactionId).status == 200)
        #expect(errorCode(try extend(purchase.transactionId)) == "403 4030005")
    }

    @Test func extensionsRefuseWhatAppleRefuses() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let expired = try subscription(customer: "carol", expiresIn: 86_400, purchaseDate: now - 10 * 86_400_000)
        #expect(errorCode(try extend(expired.transactionId)) == "403 4030004")
        let active = try subscription()
        #expect(errorCode(try extend(try fake.familyShare(transactionId: active.transactionId, with: "dave").transactionId)) == "403 4030007")
        #expect(errorCode(try extend(active.transactionId, days: 0)) == "400 4000009")
        #expect(errorCode(try extend(active.transactionId, days: 91)) == "400 4000009")
        #expect(errorCode(try call("PUT", "/inApps/v1/subscriptions/extend/" + active.transactionId, ["extendByDays": 1, "extendReasonCode": 9,
                                                                                                    "requestIdentifier": "r"])) == "400 4000010")
        #expect(errorCode(try call("PUT", "/inApps/v1/subscriptions/extend/" + active.transactionId, ["extendByDays": 1, "extendReasonCode": 1]))
                == "400 4000011")
        #expect(errorCode(try extend("404")) == "404 4040005")
        let coins = try fake.buy(FakePurchaseRequest(productId: "coins", notify: false))
        #expect(errorCode(try extend(coins.transactionId)) == "403 4030004")
    }

    @Test func aMassExtensionReachesActiveSubscribersOfTheProductInTheStorefrontsAndReportsItsStatus() throws {
        let british = try fake.buy(FakePurchaseRequest(productId: "monthly", type: "Auto-Renewable Subscription", customer: "bob",
                                                       notify: false, storefront: "GBR"))
        let american = try subscription()
        let request = UUID().uuidString
        let body: [String: Any] = ["extendByDays": 2, "extendReasonCode": 1, "requestIdentifier": request, "productId": "monthly",
                                   "storefrontCountryCodes": ["GBR"]]
        let accepted = try call("POST", "/inApps/v1/subscriptions/extend/mass", body)
        #expect(accepted.status == 200 && accepted.json["requestIdentifier"] as? String == request)
        #expect(fake.purchases.transaction(british.transactionId, in: .production)?.expiresDate == british.expiresDate.map { $0 + 2 * 86_400_000 })
        #expect(fake.purchases.transaction(american.transactionId, in: .production)?.expiresDate == american.expiresDate)
        let status = try call("GET", "/inApps/v1/subscriptions/extend/mass/monthly/" + request)
        #expect(status.json["complete"] as? Bool == true && status.json["succeededCount"] as? Int == 1 && status.json["failedCount"] as? Int == 0)
        #expect(errorCode(try call("GET", "/inApps/v1/subscriptions/extend/mass/monthly/unknown")) == "404 4040009")
        var empty = body
        empty["storefrontCountryCodes"] = [String]()
        #expect(errorCode(try call("POST", "/inApps/v1/subscriptions/extend/mass", empty)) == "400 4000027")
        var noProduct = body
        noProduct["productId"] = nil
        #expect(errorCode(try call("POST", "/inApps/v1/subscriptions/extend/mass", noProduct)) == "400 4000023")
    }

    @Test func theAppTransactionIsTheCustomersAndItsIdIsInEveryTransaction() throws {
        let purchase = try fake.buy(FakePurchaseRequest(productId: "coins", customer: "alice", notify: false))
        let answer = try call("GET", "/inApps/v1/transactions/appTransactions/" + purchase.transactionId)
        let app = try claims(answer.json["signedAppTransactionInfo"])
        #expect(app["appTransactionId"] as? String == purchase.appTransactionId && app["receiptType"] as? String == "Production")
        #expect(app["bundleId"] as? String == "com.example.app" && app["appAppleId"] as? Int64 == 1_234_567_890)
        let byAppTransaction = try call("GET", "/inApps/v1/transactions/appTransactions/" + purchase.appTransactionId)
        #expect(try claims(byAppTransaction.json["signedAppTransactionInfo"])["appTransactionId"] as? String == purchase.appTransactionId)
        #expect(errorCode(try call("GET", "/inApps/v1/transactions/appTransactions/404")) == "404 4040010")
    }

    @Test func consumptionV2IsCheckedAsAppleChecksItAndRecorded() throws {
        let coins = try fake.buy(FakePurchaseRequest(productId: "coins", notify: false))
        let monthly = try subscription()
        let path = "/inApps/v2/transactions/consumption/"
        let valid: [String: Any] = ["customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED",
                                    "refundPreference": "DECLINE"]
        #expect(try call("PUT", path + coins.transactionId, valid).status == 202)
        #expect(fake.consumptionReports().last?.version == 2)
        func refusal(_ change: (inout [String: Any]) -> Void, on id: String? = nil) throws -> String {
            var body = valid
            change(&body)
            return errorCode(try call("PUT", path + (id ?? coins.transactionId), body))
        }
        #expect(try refusal { $0["customerConsented"] = false } == "400 4000035")
        #expect(try refusal { $0["deliveryStatus"] = "LOST" } == "400 4000036")
        #expect(try refusal { $0["refundPreference"] = "MAYBE" } == "400 4000044")
        #expect(try refusal { $0["sampleContentProvided"] = nil } == "400 4000041")
        #expect(try refusal({ $0["consumptionPercentage"] = 5_000 }, on: monthly.transactionId) == "400 4000209")
        #expect(try refusal { $0["consumptionPercentage"] = 100_001 } == "400 4000000")
        #expect(try refusal({ _ in }, on: "404") == "404 4040010")
        #expect(try call("PUT", "/inApps/v1/transactions/consumption/" + coins.transactionId, ["customerConsented": true]).status == 202)
        #expect(fake.consumptionReports().last?.version == 1)
    }
}
