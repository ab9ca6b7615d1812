import Foundation
import Testing
@testable import AppleSignedData

@Suite("Payload models: lenient decoding of what Apple sends")
struct PayloadDecodingTests {
    func decode<T: Decodable>(_ json: String, as type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test func aTransactionAsAppleDocumentsItDecodesWithDates() throws {
        let transaction: TransactionPayload = try decode("""
            {"transactionId":"2000000000000001","originalTransactionId":"2000000000000000","webOrderLineItemId":"2000000000000002",
             "bundleId":"com.example","productId":"monthly","subscriptionGroupIdentifier":"21000000","purchaseDate":1698148900000,
             "originalPurchaseDate":1698148800000,"expiresDate":1700827300000,"quantity":1,"type":"Auto-Renewable Subscription",
             "appAccountToken":"7e3f6d8a-2b4c-4e1a-9f0d-5c6b7a8e9f10","inAppOwnershipType":"FAMILY_SHARED","signedDate":1698148950000,
             "revocationReason":1,"revocationDate":1698149000000,"isUpgraded":false,"offerType":2,"offerIdentifier":"intro",
             "environment":"Sandbox","storefront":"USA","storefrontId":"143441","transactionReason":"PURCHASE","price":10990,
             "currency":"USD","appTransactionId":"704000000000000001","offerDiscountType":"PAY_AS_YOU_GO"}
            """)
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.inAppOwnershipType == .familyShared)
        #expect(transaction.environment == .sandbox)
        #expect(transaction.appAccountToken == UUID(uuidString: "7E3F6D8A-2B4C-4E1A-9F0D-5C6B7A8E9F10"))
        #expect(transaction.expiresAt == Date(timeIntervalSince1970: 1_700_827_300))
        #expect(transaction.revokedAt == Date(timeIntervalSince1970: 1_698_149_000))
        #expect(transaction.price == 10_990)
        #expect(transaction.storefrontId == "143441")
    }

    @Test func valuesAppleAddsLaterLandInUnknownCases() throws {
        let transaction: TransactionPayload = try decode(#"{"type":"Bundle","inAppOwnershipType":"GIFTED","environment":"Staging"}"#)
        #expect(transaction.type == .unknown("Bundle"))
        #expect(transaction.inAppOwnershipType == .unknown("GIFTED"))
        #expect(transaction.environment == .unknown("Staging"))
        #expect(ProductType(rawValue: "Non-Renewing Subscription") == .nonRenewingSubscription)
        #expect(ProductType.nonConsumable.rawValue == "Non-Consumable")
    }

    @Test func anIllTypedFieldIsDroppedAndTheRestKept() throws {
        let transaction: TransactionPayload = try decode(#"{"transactionId":"1","quantity":"one","appAccountToken":"not-a-uuid","bundleId":"com.example"}"#)
        #expect(transaction.transactionId == "1")
        #expect(transaction.quantity == nil)
        #expect(transaction.appAccountToken == nil)
        #expect(transaction.bundleId == "com.example")
    }

    @Test func aTransactionRoundTripsThroughJSON() throws {
        let sent = transaction()
        let json = try JSONEncoder().encode(sent)
        #expect(try JSONDecoder().decode(TransactionPayload.self, from: json) == sent)
        #expect(String(decoding: json, as: UTF8.self).contains(#""type":"Consumable""#))
    }

    @Test func aNotificationNamesItsAppThroughDataOrSummary() throws {
        let refund: NotificationPayload = try decode("""
            {"notificationType":"REFUND","notificationUUID":"u-1","version":"2.0","signedDate":1698148950000,
             "data":{"appAppleId":42,"bundleId":"com.example","bundleVersion":"1.0","environment":"Production",
                     "signedTransactionInfo":"a.b.c","signedRenewalInfo":"d.e.f","status":1,"consumptionRequestReason":"UNINTENDED_PURCHASE"}}
            """)
        #expect(refund.bundleId == "com.example")
        #expect(refund.environment == .production)
        #expect(refund.appAppleId == 42)
        #expect(refund.data?.signedTransactionInfo == "a.b.c")
        #expect(refund.data?.consumptionRequestReason == "UNINTENDED_PURCHASE")
        let summary: NotificationPayload = try decode("""
            {"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","summary":{"requestIdentifier":"r","environment":"Sandbox",
             "appAppleId":7,"bundleId":"com.example","productId":"monthly","storefrontCountryCodes":["USA"],"succeededCount":5,"failedCount":0}}
            """)
        #expect(summary.bundleId == "com.example")
        #expect(summary.environment == .sandbox)
        #expect(summary.appAppleId == 7)
        #expect(summary.summary?.succeededCount == 5)
    }

    @Test func renewalInfoDecodes() throws {
        let renewal: RenewalInfoPayload = try decode("""
            {"originalTransactionId":"1","autoRenewProductId":"yearly","productId":"monthly","autoRenewStatus":0,"expirationIntent":1,
             "isInBillingRetryPeriod":true,"gracePeriodExpiresDate":1700000000000,"renewalDate":1700000000000,"renewalPrice":4990,
             "currency":"EUR","signedDate":1698148950000,"environment":"Production","recentSubscriptionStartDate":1690000000000}
            """)
        #expect(renewal.autoRenewStatus == 0)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.renewsAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(renewal.environment == .production)
    }
}
