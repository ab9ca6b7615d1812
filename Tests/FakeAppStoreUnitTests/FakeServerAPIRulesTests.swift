import Foundation
import FakeAppStore
import Testing

@Suite("Fake rate limit: a token bucket per endpoint")
struct FakeTokenBucketTests {
    @Test func aFullBucketLetsABurstOfItsCapacityThenTheRate() {
        var bucket = FakeTokenBucket(rate: 4, capacity: 4)
        for _ in 0..<4 { #expect(bucket.take(now: 10) == nil) }
        #expect(bucket.take(now: 10) == 0.25)
        #expect(bucket.take(now: 10.25) == nil)
        #expect(bucket.take(now: 10.25) == 0.25)
    }

    @Test func itNeverHoldsMoreThanItsCapacity() {
        var bucket = FakeTokenBucket(rate: 10, capacity: 2)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 100) == nil)
        #expect(bucket.take(now: 100) == nil)
        #expect(bucket.take(now: 100) != nil)
    }

    @Test func timeGoingBackwardsAddsNothing() {
        var bucket = FakeTokenBucket(rate: 10, capacity: 1)
        #expect(bucket.take(now: 5) == nil)
        #expect(bucket.take(now: 4) != nil)
    }
}

@Suite("Fake notifications: Apple's retry schedule, compressible")
struct FakeNotificationScheduleTests {
    @Test func productionRetriesFiveTimesAtOneTwelveTwentyFourFortyEightSeventyTwoHours() {
        let delays = (1...6).map { FakeNotificationSchedule.delay(afterAttempts: $0, environment: .production, compression: 1) }
        #expect(delays == [.seconds(3_600), .seconds(43_200), .seconds(86_400), .seconds(172_800), .seconds(259_200), nil])
    }

    @Test func compressionDividesEveryDelay() {
        #expect(FakeNotificationSchedule.delay(afterAttempts: 1, environment: .production, compression: 3_600) == .seconds(1))
        #expect(FakeNotificationSchedule.delay(afterAttempts: 5, environment: .production, compression: 360_000) == .milliseconds(720))
    }

    @Test func theSandboxSendsOnceUnlessToldToRetry() {
        #expect(FakeNotificationSchedule.delay(afterAttempts: 1, environment: .sandbox, compression: 1) == nil)
        #expect(FakeNotificationSchedule.delay(afterAttempts: 1, environment: .sandbox, compression: 1, retrySandbox: true) == .seconds(3_600))
    }
}

@Suite("Fake purchases: admin input gets a clear 4xx")
struct FakePurchasesTests {
    let fake: FakeServerAPI

    init() throws {
        fake = try FakeServerAPI()
    }

    @Test func aPurchaseGetsIdsAndApplesSpellings() throws {
        let purchase = try fake.buy(FakePurchaseRequest(productId: "coins", type: "consumable", notify: false))
        #expect(purchase.type == "Consumable")
        #expect(purchase.transactionId == purchase.originalTransactionId)
        #expect(purchase.webOrderLineItemId == nil)
        let subscription = try fake.buy(FakePurchaseRequest(productId: "pro", type: "auto-renewable", notify: false))
        #expect(subscription.type == "Auto-Renewable Subscription")
        #expect(subscription.webOrderLineItemId != nil && subscription.expiresDate != nil)
    }

    @Test func aRenewalKeepsTheOriginalAndStartsWhereThePeriodEnded() throws {
        let first = try fake.buy(FakePurchaseRequest(productId: "pro", type: "auto-renewable", expiresInSeconds: 60, notify: false))
        let second = try fake.renew(originalTransactionId: first.transactionId)
        #expect(second.originalTransactionId == first.transactionId)
        #expect(second.transactionId != first.transactionId)
        #expect(second.webOrderLineItemId != first.webOrderLineItemId)
        #expect(second.transactionReason == "RENEWAL")
        #expect(second.purchaseDate >= first.expiresDate!)
    }

    @Test(arguments: [
        (FakePurchaseRequest(productId: ""), 400), (FakePurchaseRequest(productId: "p", type: "gift"), 400),
        (FakePurchaseRequest(productId: "p", environment: "Xcode"), 400), (FakePurchaseRequest(productId: "p", appAccountToken: "nope"), 400),
    ])
    func badPurchasesAreRefusedWithAFourHundred(request: FakePurchaseRequest, status: Int) {
        #expect(throws: FakeAdminError.self) { try fake.buy(request) }
        do { _ = try fake.buy(request) } catch let error as FakeAdminError { #expect(error.status == status) } catch {}
    }

    @Test func changingWhatDoesNotExistIsNotFoundAndTwiceIsAConflict() throws {
        #expect(throws: FakeAdminError(404, "no transaction nope in Production")) { try fake.refund(transactionId: "nope") }
        let purchase = try fake.buy(FakePurchaseRequest(productId: "coins", notify: false))
        _ = try fake.refund(transactionId: purchase.transactionId)
        #expect(throws: FakeAdminError(409, "\(purchase.transactionId) is already revoked")) { try fake.refund(transactionId: purchase.transactionId) }
        #expect(throws: FakeAdminError.self) { try fake.renew(originalTransactionId: purchase.transactionId) }
    }

    @Test func familySharingMakesATransactionOfTheMembersOwn() throws {
        let purchase = try fake.buy(FakePurchaseRequest(productId: "unlock", type: "non-consumable", customer: "parent", notify: false))
        let shared = try fake.familyShare(transactionId: purchase.transactionId, with: "child")
        #expect(shared.inAppOwnershipType == "FAMILY_SHARED")
        #expect(shared.customer == "child")
        #expect(shared.transactionId != purchase.transactionId)
        #expect(throws: FakeAdminError.self) { try fake.familyShare(transactionId: purchase.transactionId, with: "parent") }
    }

    @Test func theAdminAPIAnswersBadJSONWithAFourHundredAndAnError() {
        let answer = fake.answer(method: "POST", uri: "/fake/admin/refund", authorization: nil, body: Array("[1,2".utf8), outage: nil)
        #expect(answer?.status == 400)
        let text = String(decoding: answer?.body ?? [], as: UTF8.self)
        #expect(text.contains("\"error\""))
        #expect(fake.answer(method: "POST", uri: "/fake/admin/renew", authorization: nil, body: Array("{}".utf8), outage: nil)?.status == 400)
        #expect(fake.answer(method: "DELETE", uri: "/fake/admin/purchases", authorization: nil, body: [], outage: nil)?.status == 404)
        #expect(fake.answer(method: "POST", uri: "/fake/admin/faults", authorization: nil, body: Array(#"{"httpStatus":42}"#.utf8), outage: nil)?.status == 400)
    }

    @Test func theAdminAPIHandsOutWhatStoreKitTwoWouldGiveTheAppForATransaction() throws {
        let purchase = try fake.buy(FakePurchaseRequest(productId: "com.example.pro", type: "non-consumable", notify: false))
        let answer = fake.answer(method: "POST", uri: "/fake/admin/signed-transaction", authorization: nil,
                                 body: Array(#"{"transactionId":"\#(purchase.transactionId)"}"#.utf8), outage: nil)
        #expect(answer?.status == 200)
        let object = try JSONSerialization.jsonObject(with: Data(answer?.body ?? [])) as? [String: String]
        #expect(object?["signedTransaction"]?.split(separator: ".").count == 3)
        #expect(fake.answer(method: "POST", uri: "/fake/admin/signed-transaction", authorization: nil,
                            body: Array(#"{"transactionId":"nope"}"#.utf8), outage: nil)?.status == 404)
    }

    @Test func serverAPIPathsAreAnsweredAndOthersAreLeftToTheVerifyReceiptHalf() {
        #expect(fake.answer(method: "GET", uri: "/production/inApps/v1/transactions/1", authorization: nil, body: [], outage: nil)?.status == 401)
        #expect(fake.answer(method: "GET", uri: "/sandbox/inApps/v2/history/1?revision=x", authorization: nil, body: [], outage: nil)?.status == 401)
        #expect(fake.answer(method: "GET", uri: "/production/inApps/v9/nothing", authorization: nil, body: [], outage: nil)?.status == 404)
        #expect(fake.answer(method: "POST", uri: "/production/verifyReceipt", authorization: nil, body: [], outage: nil) == nil)
        #expect(fake.answer(method: "GET", uri: "/fake/root.pem", authorization: nil, body: [], outage: nil)?.status == 200)
    }

    @Test func outagesApplyToTheServerAPIButNotToTheAdminAPI() {
        let outage = FakeOutage(start: .zero, end: .seconds(10), kind: .serviceUnavailable)
        #expect(fake.answer(method: "GET", uri: "/production/inApps/v1/transactions/1", authorization: nil, body: [], outage: outage)?.status == 503)
        let refused = FakeOutage(start: .zero, end: .seconds(10), kind: .refused)
        #expect(fake.answer(method: "GET", uri: "/inApps/v1/transactions/1", authorization: nil, body: [], outage: refused)?.closeConnection == true)
        #expect(fake.answer(method: "GET", uri: "/fake/admin/purchases", authorization: nil, body: [], outage: outage)?.status == 200)
    }
}
