import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

@Suite("Signed data: what is accepted")
struct AcceptanceTests {
    @Test func aTransactionSignedByTheConfiguredRootsChainVerifiesAndDecodes() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root])
        let sent = transaction()
        let received = try await verifier.verifyTransaction(try pki.sign(sent))
        #expect(received == sent)
        #expect(received.appAccountToken == UUID(uuidString: "7E3F6D8A-2B4C-4E1A-9F0D-5C6B7A8E9F10"))
        #expect(received.signedAt == Date(appStoreMilliseconds: reference.appStoreMilliseconds))
    }

    @Test func anyOfSeveralConfiguredBundleIdsIsAccepted() async throws {
        let pki = try makePKI()
        let verifier = try SignedDataVerifier(configuration: .init(
            trustedRoots: [pki.root], bundleIds: [bundleId, "com.example.widget"], environment: .sandbox, now: { reference }
        ))
        _ = try await verifier.verifyTransaction(try pki.sign(transaction(bundle: "com.example.widget")))
    }

    @Test func aProductionNotificationForTheConfiguredAppVerifies() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root], environment: .production, appAppleId: appAppleId)
        let notification = refundNotification(carrying: try pki.sign(transaction(environment: .production)))
        let received = try await verifier.verifyNotification(try pki.sign(notification))
        #expect(received.notificationType == "REFUND")
        let inner = try await verifier.verifyTransaction(try #require(received.data?.signedTransactionInfo))
        #expect(inner.productId == "coins.100")
    }

    @Test func productionTransactionsAreAcceptedThoughTheyNameNoAppAppleId() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root], environment: .production, appAppleId: appAppleId)
        _ = try await verifier.verifyTransaction(try pki.sign(transaction(environment: .production)))
    }

    @Test func renewalInfoIsJudgedByEnvironmentAlone() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root])
        var renewal = RenewalInfoPayload()
        renewal.originalTransactionId = "2000000123456789"
        renewal.autoRenewStatus = 1
        renewal.signedDate = reference.appStoreMilliseconds
        renewal.environment = .sandbox
        #expect(try await verifier.verifyRenewalInfo(try pki.sign(renewal)) == renewal)
        renewal.environment = .production
        #expect(await refusal { try await verifier.verifyRenewalInfo(try pki.sign(renewal)) } == .environmentMismatch)
    }

    @Test func aVerifierWithoutBundleIdsOrRootsDoesNotStart() {
        #expect(throws: SignedDataVerifier.ConfigurationError.noBundleIds) {
            try SignedDataVerifier(configuration: .init(bundleIds: [], environment: .sandbox))
        }
        #expect(throws: SignedDataVerifier.ConfigurationError.noTrustedRoots) {
            try SignedDataVerifier(configuration: .init(trustedRoots: [], bundleIds: ["a"], environment: .sandbox))
        }
    }
}
