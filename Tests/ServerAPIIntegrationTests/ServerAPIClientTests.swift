import AppStoreServerAPI
import AppleSignedData
import FakeAppStore
import Foundation
import Testing
import X509

/// The client against the fake over real HTTP: every endpoint, paging, Apple's errors as kinds, and
/// what the fake signs verified against the fake's root only.
@Suite("Server API client against the fake")
struct ServerAPIClientTests {
    @Test func signedTransactionsVerifyWithTheFakesRootConfigured() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy()
            let transaction = try await fixture.client().verifiedTransactionInfo(transactionId: purchase.transactionId,
                                                                                  verifier: try fixture.verifier())
            #expect(transaction.transactionId == purchase.transactionId)
            #expect(transaction.productId == "com.example.coins")
            #expect(transaction.type == .consumable)
            #expect(transaction.environment == .production)
            #expect(transaction.bundleId == ServerAPIFixture.bundleId)
        }
    }

    /// Get App Transaction Info: the customer's app transaction, found by any id of theirs and
    /// verified as any signed data; the same one StoreKit hands the app.
    @Test func theAppTransactionIsFoundByAnyOfTheCustomersIdsAndVerified() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.coins", customer: "early-bird",
                                                                              purchaseDate: 1_700_000_000_000, notify: false))
            let handed = fixture.fake.serverAPI.signedAppTransaction(customer: "early-bird", originalApplicationVersion: "0.9")
            for id in [purchase.transactionId, purchase.originalTransactionId, handed.appTransactionId] {
                let app = try await fixture.client().verifiedAppTransactionInfo(id, verifier: try fixture.verifier())
                #expect(app.appTransactionId == handed.appTransactionId, "found by \(id)")
                #expect(app.originalApplicationVersion == "0.9")
                // The download date is the first purchase's: Apple's never moves when the app hands its AppTransaction over.
                #expect(app.originalPurchaseDate == 1_700_000_000_000)
                #expect(app.bundleId == ServerAPIFixture.bundleId && app.environment == .production)
            }
            await #expect(throws: ServerAPIError.self) { _ = try await fixture.client().getAppTransactionInfo("9999999999") }
        }
    }

    /// Finish Transaction: 200 with no body for a transaction Apple knows, which it then holds
    /// finished; Apple's 404 for one it does not.
    @Test func aFinishedTransactionIsMarkedFinishedAndAnUnknownOneIsNotFound() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy()
            #expect(!fixture.fake.serverAPI.purchases.isFinished(purchase.transactionId))
            try await fixture.client().finishTransaction(transactionId: purchase.transactionId)
            #expect(fixture.fake.serverAPI.purchases.isFinished(purchase.transactionId))
            do {
                try await fixture.client().finishTransaction(transactionId: "9999999999")
                Issue.record("an unknown transaction was finished")
            } catch let error as ServerAPIError {
                #expect(error.httpStatus == 404, "\(error)")
            }
        }
    }

    @Test func signedTransactionsAreRefusedWithApplesRealRootConfigured() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy()
            let appleOnly = try SignedDataVerifier(configuration: .init(
                trustedRoots: [AppleRootCertificates.appleRootCAG3], bundleIds: [ServerAPIFixture.bundleId], environment: .production))
            await #expect(throws: SignedDataVerificationError.self) {
                _ = try await fixture.client().verifiedTransactionInfo(transactionId: purchase.transactionId, verifier: appleOnly)
            }
            let signed = try #require(try await fixture.client().getTransactionInfo(transactionId: purchase.transactionId).signedTransactionInfo)
            do {
                _ = try await appleOnly.verifyTransaction(signed)
            } catch let error as SignedDataVerificationError {
                #expect(error.reason == .chainNotTrusted)
            }
        }
    }

    @Test func theRootServedOverHTTPIsTheOneThatSigns() async throws {
        try await withServerAPIFixture { fixture in
            let response = try await fixture.http.send(.get, url: fixture.fake.rootCertificateURL)
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == fixture.fake.serverAPI.rootCertificatePEM)
        }
    }

    @Test func theClientPagesThroughTheWholeHistory() async throws {
        try await withServerAPIFixture { fixture in
            var bought: [String] = []
            for index in 0..<45 {
                bought.append(try fixture.fake.serverAPI.buy(FakePurchaseRequest(
                    productId: "com.example.coins", customer: "buyer", purchaseDate: 1_700_000_000_000 + Int64(index) * 1_000, notify: false)).transactionId)
            }
            _ = try fixture.buy(customer: "someone-else")
            let client = try fixture.client()
            let first = try await client.getTransactionHistory(transactionId: bought[7])
            #expect(first.signedTransactions?.count == 20)
            #expect(first.hasMore == true)
            let history = try await client.getFullTransactionHistory(transactionId: bought[7])
            #expect(history.pages == 3)
            #expect(history.signedTransactions.count == 45)
            let verified = try await client.verifiedTransactionHistory(transactionId: bought[0], verifier: try fixture.verifier())
            #expect(verified.map(\.transactionId) == bought.map(Optional.init))
            let newest = try await client.getTransactionHistory(transactionId: bought[0], request: TransactionHistoryRequest(sort: .descending))
            #expect(newest.signedTransactions?.count == 20)
            let later = try await client.getFullTransactionHistory(transactionId: bought[0], startingAt: history.revision)
            #expect(later.signedTransactions.isEmpty)
        }
    }

    @Test func aTransactionOnlyInTheSandboxIsNotFoundInProductionThenFoundThere() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy(environment: "Sandbox")
            let error = await serverAPIError { _ = try await fixture.client(.production).getTransactionInfo(transactionId: purchase.transactionId) }
            #expect(error?.kind == .transactionNotFound)
            #expect(error?.errorCode == 4_040_010)
            let (environment, info) = try await fixture.clients().inEitherEnvironment { try await $0.getTransactionInfo(transactionId: purchase.transactionId) }
            #expect(environment == .sandbox)
            let transaction = try await fixture.verifier(.sandbox).verifyTransaction(try #require(info.signedTransactionInfo))
            #expect(transaction.environment == .sandbox)
        }
    }

    @Test func notFoundInEitherEnvironmentIsAnAnswer() async throws {
        try await withServerAPIFixture { fixture in
            let error = await serverAPIError { _ = try await fixture.clients().inEitherEnvironment { try await $0.getTransactionInfo(transactionId: "999") } }
            #expect(error?.kind == .transactionNotFound)
            #expect(error?.isRetryable == false)
        }
    }

    @Test(arguments: [(404, 4_040_002), (404, 4_040_004), (404, 4_040_006), (500, 5_000_001), (503, nil), (500, 5_000_000)] as [(Int, Int64?)])
    func applesRetryableAnswersAreRetryable(status: Int, code: Int64?) async throws {
        try await withServerAPIFixture { fixture in
            try fixture.fake.serverAPI.inject(FakeFault(endpoint: "get_transaction_info", httpStatus: status, errorCode: code))
            let purchase = try fixture.buy()
            let client = try fixture.client()
            let error = await serverAPIError { _ = try await client.getTransactionInfo(transactionId: purchase.transactionId) }
            #expect(error?.kind == .retryable)
            #expect(error?.isRetryable == true)
            #expect(error?.errorCode == code)
            _ = try await client.getTransactionInfo(transactionId: purchase.transactionId)   // the fault was used up
        }
    }

    @Test func anOutageIsRetryableWhateverShapeItTakes() async throws {
        // A 21002 storm is verifyReceipt's alone: the Server API answers as usual through it.
        for kind in FakeOutage.Kind.allCases where kind != .malformed21002 {
            let fake = try await FakeAppStoreServer.start(configuration: FakeAppStoreConfiguration(
                latency: FakeDurationRange(lower: .zero, upper: .zero), outages: [FakeOutage(start: .zero, end: .seconds(60), kind: kind)]))
            let fixture = ServerAPIFixture(fake: fake, key: .init(), http: .init())
            let error = await serverAPIError { _ = try await fixture.client().getTransactionInfo(transactionId: "1") }
            switch kind {
            case .refused: #expect(error?.kind == .network)
            case .serviceUnavailable: #expect(error?.kind == .retryable)
            case .html200: #expect(error?.kind == .unreadableResponse)
            case .malformed21002: break
            }
            #expect(error?.isRetryable == true)
            await fixture.stop()
        }
    }

    @Test func subscriptionStatusesRefundsAndRenewalInfoVerify() async throws {
        try await withServerAPIFixture { fixture in
            let api = fixture.fake.serverAPI
            let first = try fixture.buy("com.example.pro", type: "auto-renewable")
            let renewed = try api.renew(originalTransactionId: first.transactionId)
            let coins = try fixture.buy()
            _ = try api.refund(transactionId: coins.transactionId, reason: 1)
            let client = try fixture.client()
            let verifier = try fixture.verifier()
            let statuses = try await client.verifiedSubscriptionStatuses(transactionId: coins.transactionId, verifier: verifier)
            #expect(statuses.count == 1)
            #expect(statuses.first?.status == 1)
            #expect(statuses.first?.transaction?.transactionId == renewed.transactionId)
            #expect(statuses.first?.renewalInfo?.autoRenewStatus == 1)
            let refunds = try await client.verifiedRefundHistory(transactionId: first.transactionId, verifier: verifier)
            #expect(refunds.map(\.transactionId) == [coins.transactionId])
            #expect(refunds.first?.revocationReason == 1)
            _ = try api.revoke(transactionId: renewed.transactionId)
            #expect(try await client.getAllSubscriptionStatuses(transactionId: first.transactionId, status: [1]).data?.isEmpty == true)
            #expect(try await client.verifiedSubscriptionStatuses(transactionId: first.transactionId, verifier: verifier).first?.status == 5)
        }
    }

    @Test func consumptionInformationIsAcceptedOnlyWithConsent() async throws {
        try await withServerAPIFixture { fixture in
            let purchase = try fixture.buy()
            let client = try fixture.client()
            try await client.sendConsumptionInformation(transactionId: purchase.transactionId,
                                                        ConsumptionRequest(consumptionPercentage: 25_000, refundPreference: .decline))
            let report = try #require(fixture.fake.serverAPI.consumptionReports().first)
            #expect(report.transactionId == purchase.transactionId)
            #expect(report.version == 2, "Send Consumption Information v2, not Apple's deprecated v1")
            #expect(report.body.contains(#""refundPreference":"DECLINE""#))
            let refused = await serverAPIError {
                try await client.sendConsumptionInformation(transactionId: purchase.transactionId, ConsumptionRequest(customerConsented: false))
            }
            #expect(refused?.kind == .invalidRequest)
            #expect(refused?.errorCode == 4_000_035)
            let missing = await serverAPIError { try await client.sendConsumptionInformation(transactionId: "404", ConsumptionRequest()) }
            #expect(missing?.kind == .transactionNotFound)
        }
    }

    @Test func identifiersCannotReachAnotherEndpoint() async throws {
        try await withServerAPIFixture { fixture in
            let error = await serverAPIError { _ = try await fixture.client().getTransactionInfo(transactionId: "../../v1/notifications/test") }
            #expect(error?.kind == .transactionNotFound)
        }
    }
}
