import AppStore
import Foundation
import Testing

struct VerifyReceiptParsingTests {
    private func decode(_ json: String) throws -> VerifyReceiptResponse {
        try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(json.utf8))
    }

    @Test func consumableReceiptExposesItsTransaction() throws {
        let response = try decode(Fixtures.consumable)
        #expect(response.environment == .production)
        #expect(response.receipt?.bundleID == "com.example.game")
        let purchase = try #require(response.receipt?.inApp.first)
        #expect(purchase.transactionID == "330001234567890")
        #expect(purchase.productID == "com.example.game.coins100")
        #expect(purchase.quantity == 1)
        #expect(purchase.purchaseDateMs == 1_709_287_198_000)
        #expect(purchase.purchaseDate == Date(timeIntervalSince1970: 1_709_287_198))
        #expect(purchase.expiresDateMs == nil)
        #expect(response.latestReceiptInfo.isEmpty)
    }

    @Test func subscriptionReceiptExposesLatestInfoAndPendingRenewal() throws {
        let response = try decode(Fixtures.subscription)
        #expect(response.status == 21006)
        let latest = try #require(response.latestReceiptInfo.first)
        #expect(latest.transactionID == "440000000000002")
        #expect(latest.originalTransactionID == "440000000000001")
        #expect(latest.expiresDateMs == 1_705_270_400_000)
        #expect(latest.cancellationDateMs == 1_703_000_000_000)
        let renewal = try #require(response.pendingRenewalInfo.first)
        #expect(renewal.autoRenewStatus == false)
        #expect(renewal.expirationIntent == "1")
        #expect(renewal.isInBillingRetryPeriod == false)
        #expect(response.receipt?.inApp.first?.isTrialPeriod == true)
        #expect(response.latestReceipt == "MIIT...base64...")
    }

    @Test func emptyInAppDecodesToNoTransactions() throws {
        let response = try decode(Fixtures.emptyInApp)
        #expect(response.receipt?.inApp.isEmpty == true)
    }

    @Test func sandboxReceiptReportsSandboxEnvironment() throws {
        let response = try decode(Fixtures.sandbox)
        #expect(response.environment == .sandbox)
        #expect(response.receipt?.receiptType == "ProductionSandbox")
        #expect(response.receipt?.inApp.first?.quantity == 2)
    }

    @Test func numericIdentifiersAreAcceptedAsStrings() throws {
        let response = try decode(#"{"status":0,"receipt":{"bundle_id":"b","in_app":[{"transaction_id":123,"product_id":"p","quantity":3,"purchase_date_ms":1700000000000}]}}"#)
        let purchase = try #require(response.receipt?.inApp.first)
        #expect(purchase.transactionID == "123")
        #expect(purchase.originalTransactionID == "123")
        #expect(purchase.quantity == 3)
    }
}
