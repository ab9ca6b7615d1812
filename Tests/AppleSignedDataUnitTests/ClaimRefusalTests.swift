import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

@Suite("Signed data: payloads for another app or environment are refused")
struct ClaimRefusalTests {
    let pki: TestPKI

    init() throws { pki = try makePKI() }

    func notification(appAppleId id: Int64?, environment: AppStoreEnvironment = .production) -> NotificationPayload {
        var notification = NotificationPayload()
        notification.notificationType = "DID_RENEW"
        notification.signedDate = reference.appStoreMilliseconds
        notification.data = NotificationData()
        notification.data?.appAppleId = id
        notification.data?.bundleId = bundleId
        notification.data?.environment = environment
        return notification
    }

    @Test func anotherAppsTransactionIsABundleIdMismatch() async throws {
        let verifier = try makeVerifier(trusting: [pki.root])
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(transaction(bundle: "com.example.other"))) } == .bundleIdMismatch)
        var anonymous = transaction()
        anonymous.bundleId = nil
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(anonymous)) } == .bundleIdMismatch)
    }

    @Test func aSandboxPurchaseIsRefusedByAProductionVerifierAndViceVersa() async throws {
        let production = try makeVerifier(trusting: [pki.root], environment: .production)
        let sandbox = try makeVerifier(trusting: [pki.root], environment: .sandbox)
        #expect(await refusal { try await production.verifyTransaction(try pki.sign(transaction(environment: .sandbox))) } == .environmentMismatch)
        #expect(await refusal { try await sandbox.verifyTransaction(try pki.sign(transaction(environment: .production))) } == .environmentMismatch)
        #expect(await refusal { try await sandbox.verifyTransaction(try pki.sign(transaction(environment: .xcode))) } == .environmentMismatch)
        var unnamed = transaction()
        unnamed.environment = nil
        #expect(await refusal { try await sandbox.verifyTransaction(try pki.sign(unnamed)) } == .environmentMismatch)
    }

    @Test func anEnvironmentAppleAddsLaterIsAMismatchNotADecodingFailure() async throws {
        let verifier = try makeVerifier(trusting: [pki.root])
        let jws = try pki.sign(transaction(environment: .unknown("Staging")))
        #expect(await refusal { try await verifier.verifyTransaction(jws) } == .environmentMismatch)
    }

    @Test func aProductionNotificationForAnotherAppAppleIdIsRefused() async throws {
        let verifier = try makeVerifier(trusting: [pki.root], environment: .production, appAppleId: appAppleId)
        #expect(await refusal { try await verifier.verifyNotification(try pki.sign(notification(appAppleId: 42))) } == .appAppleIdMismatch)
        #expect(await refusal { try await verifier.verifyNotification(try pki.sign(notification(appAppleId: nil))) } == .appAppleIdMismatch)
        _ = try await verifier.verifyNotification(try pki.sign(notification(appAppleId: appAppleId)))
    }

    @Test func theAppAppleIdIsNotComparedInSandboxOrWhenNotConfigured() async throws {
        let sandbox = try makeVerifier(trusting: [pki.root], environment: .sandbox, appAppleId: appAppleId)
        _ = try await sandbox.verifyNotification(try pki.sign(notification(appAppleId: nil, environment: .sandbox)))
        let unconfigured = try makeVerifier(trusting: [pki.root], environment: .production)
        _ = try await unconfigured.verifyNotification(try pki.sign(notification(appAppleId: 42)))
    }

    @Test func aNotificationWithNeitherDataNorSummaryNamesNoApp() async throws {
        let verifier = try makeVerifier(trusting: [pki.root])
        var empty = NotificationPayload()
        empty.signedDate = reference.appStoreMilliseconds
        #expect(await refusal { try await verifier.verifyNotification(try pki.sign(empty)) } == .bundleIdMismatch)
    }
}
