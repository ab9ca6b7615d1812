import AppStoreServerAPI
import AppleSignedData
import FakeAppStore
import Foundation
import ReceiptQueueTesting
import Testing

/// The fake sends App Store Server Notifications V2 as Apple does, retries failures on Apple's
/// schedule (compressed here: an hour is 10 ms), and serves Get Notification History from them.
@Suite("Fake notifications: delivery, Apple's retries, history")
struct NotificationDeliveryTests {
    static let compression = 360_000.0   // 1, 12, 24, 48, 72 h → 10, 120, 240, 480, 720 ms

    @Test func aRefundIsPostedAsASignedPayloadThatVerifies() async throws {
        let receiver = try await NotificationReceiver.start()
        try await withServerAPIFixture({ $0.notificationURL = receiver.url }) { fixture in
            let purchase = try fixture.buy()
            _ = try fixture.fake.serverAPI.refund(transactionId: purchase.transactionId)
            #expect(await eventually(timeout: .seconds(5)) { receiver.all.count == 1 })
            let body = try JSONDecoder().decode([String: String].self, from: Data(try #require(receiver.all.first).body.utf8))
            let verifier = try SignedDataVerifier(configuration: .init(
                trustedRoots: try fixture.verifier().configuration.trustedRoots, bundleIds: [ServerAPIFixture.bundleId],
                environment: .production, appAppleId: fixture.fake.serverAPI.configuration.appAppleId))
            let notification = try await verifier.verifyNotification(try #require(body["signedPayload"]))
            #expect(notification.notificationType == "REFUND")
            let transaction = try await verifier.verifyTransaction(try #require(notification.data?.signedTransactionInfo))
            #expect(transaction.transactionId == purchase.transactionId)
            #expect(transaction.revocationDate != nil)
        }
        await receiver.stop()
    }

    @Test func aFailedNotificationIsRetriedOnApplesScheduleUntilItIsAccepted() async throws {
        let receiver = try await NotificationReceiver.start(failFirst: 3)
        try await withServerAPIFixture({ $0.notificationURL = receiver.url; $0.notificationRetryCompression = Self.compression }) { fixture in
            let purchase = try fixture.buy()
            _ = try fixture.fake.serverAPI.refund(transactionId: purchase.transactionId)
            #expect(await eventually(timeout: .seconds(10)) { fixture.fake.serverAPI.notifications.all().first?.delivered == true })
            let arrivals = receiver.all.map(\.at)
            #expect(arrivals.count == 4)
            let gaps = zip(arrivals, arrivals.dropFirst()).map { $1 - $0 }
            // Never before Apple's (compressed) delay; a loaded machine may add to it.
            for (gap, expected) in zip(gaps, [Duration.milliseconds(10), .milliseconds(120), .milliseconds(240)]) {
                #expect(gap >= expected, "\(gap), expected at least \(expected)")
            }
            #expect(gaps.count == 3)
            let sent = try #require(fixture.fake.serverAPI.notifications.all().first)
            #expect(sent.attempts.map(\.sendAttemptResult) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
                                                               "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"])
            #expect(sent.finished)
        }
        await receiver.stop()
    }

    @Test func theFakeGivesUpAfterFiveRetries() async throws {
        let receiver = try await NotificationReceiver.start(failFirst: 100)
        try await withServerAPIFixture({ $0.notificationURL = receiver.url; $0.notificationRetryCompression = Self.compression }) { fixture in
            _ = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.coins"))
            // Generous: CI runs this beside the whole suite (alone it takes well under a second).
            #expect(await eventually(timeout: .seconds(60)) { fixture.fake.serverAPI.notifications.all().first?.finished == true })
            #expect(receiver.all.count == 6)
            #expect(fixture.fake.serverAPI.notifications.all().first?.delivered == false)
        }
        await receiver.stop()
    }

    @Test func theSandboxSendsOnceAsAppleDoes() async throws {
        let receiver = try await NotificationReceiver.start(failFirst: 100)
        try await withServerAPIFixture({ $0.notificationURL = receiver.url; $0.notificationRetryCompression = Self.compression }) { fixture in
            _ = try fixture.fake.serverAPI.buy(FakePurchaseRequest(productId: "com.example.coins", environment: "Sandbox"))
            #expect(await eventually(timeout: .seconds(30)) { fixture.fake.serverAPI.notifications.all().first?.finished == true })
            try await Task.sleep(for: .milliseconds(300))
            #expect(receiver.all.count == 1)
        }
        await receiver.stop()
    }

    @Test func notificationHistoryServesWhatWasSentWithItsAttempts() async throws {
        let receiver = try await NotificationReceiver.start(failFirst: 1)
        try await withServerAPIFixture({ $0.notificationURL = receiver.url; $0.notificationRetryCompression = Self.compression }) { fixture in
            let api = fixture.fake.serverAPI
            let started = Date().addingTimeInterval(-1)
            let purchase = try api.buy(FakePurchaseRequest(productId: "com.example.pro", type: "auto-renewable", customer: "a"))
            _ = try api.renew(originalTransactionId: purchase.transactionId)
            for index in 0..<25 { _ = try api.buy(FakePurchaseRequest(productId: "com.example.coins", customer: "b\(index)")) }
            #expect(await eventually(timeout: .seconds(10)) { api.notifications.all().allSatisfy(\.finished) })
            let client = try fixture.client()
            let all = try await client.getFullNotificationHistory(NotificationHistoryRequest(startDate: started, endDate: Date().addingTimeInterval(1)))
            #expect(all.count == 27)
            let mine = try await client.getFullNotificationHistory(NotificationHistoryRequest(
                startDate: started, endDate: Date().addingTimeInterval(1), transactionId: purchase.transactionId))
            #expect(mine.count == 2)
            let retried = all.filter { $0.sendAttempts?.count == 2 }   // the one the backend refused first
            #expect(retried.count == 1)
            #expect(retried.first?.sendAttempts?.map(\.sendAttemptResult) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"])
            let failures = try await client.getFullNotificationHistory(NotificationHistoryRequest(
                startDate: started, endDate: Date().addingTimeInterval(1), onlyFailures: true))
            #expect(failures.isEmpty)
        }
        await receiver.stop()
    }

    @Test func aTestNotificationIsSentAndItsStatusReported() async throws {
        let receiver = try await NotificationReceiver.start()
        try await withServerAPIFixture({ $0.notificationURL = receiver.url }) { fixture in
            let client = try fixture.client()
            let token = try #require(try await client.requestTestNotification().testNotificationToken)
            #expect(await eventually(timeout: .seconds(30)) { receiver.all.count == 1 })
            #expect(await eventually(timeout: .seconds(30)) { fixture.fake.serverAPI.notifications.all().first?.finished == true })
            let asked = ContinuousClock.now
            let status = try await client.getTestNotificationStatus(testNotificationToken: token)
            #expect(status.sendAttempts?.first?.sendAttemptResult == "SUCCESS")
            let limited = await serverAPIError { _ = try await client.getTestNotificationStatus(testNotificationToken: "nope") }
            if case .rateLimited(let until)? = limited?.kind {
                #expect(until != nil)   // Retry-After, in UNIX milliseconds
            } else if ContinuousClock.now - asked < .milliseconds(900) {
                // (On a machine loaded enough, the second request may leave after the second is over.)
                Issue.record("a second status request within the second should be rate limited, got \(String(describing: limited))")
            }
            try await Task.sleep(for: .milliseconds(1_100))   // Apple allows one status request a second
            let missing = await serverAPIError { _ = try await client.getTestNotificationStatus(testNotificationToken: "nope") }
            #expect(missing?.kind == .notFound)
        }
        await receiver.stop()
    }

    @Test func noNotificationURLIsApplesServerNotificationURLNotFound() async throws {
        try await withServerAPIFixture { fixture in
            let error = await serverAPIError { _ = try await fixture.client().requestTestNotification() }
            #expect(error?.kind == .notFound)
            #expect(error?.errorCode == 4_040_007)
        }
    }
}
