import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

@Suite("App receipts: a verified receipt for another app or environment is refused")
struct ClaimRefusalTests {
    let verifier = try! makeVerifier()

    @Test func aReceiptForAnotherAppIsRefused() async throws {
        #expect(await refusal { try await verifier.verify(der: try mint(sampleReceipt(bundle: "com.example.other"))) } == .bundleIdMismatch)
        var anonymous = sampleReceipt()
        anonymous.bundleId = nil
        #expect(await refusal { try await verifier.verify(der: try mint(anonymous)) } == .bundleIdMismatch)
    }

    @Test func aProductionReceiptIsRefusedBySandboxAndTheOtherWayRound() async throws {
        #expect(await refusal { try await verifier.verify(der: try mint(sampleReceipt(environment: .production))) } == .environmentMismatch)
        let production = try makeVerifier(environments: [.production])
        #expect(await refusal { try await production.verify(der: try mint(sampleReceipt(environment: .sandbox))) } == .environmentMismatch)
        #expect(await refusal { try await production.verify(der: try mint(sampleReceipt(environment: .xcode))) } == .environmentMismatch)
    }

    @Test func anUnknownOrMissingReceiptTypeMatchesNoEnvironment() async throws {
        let all = try makeVerifier(environments: [.production, .sandbox, .xcode, .localTesting])
        var unknown = sampleReceipt()
        unknown.receiptType = "ProductionInternal"
        #expect(await refusal { try await all.verify(der: try mint(unknown)) } == .environmentMismatch)
        unknown.receiptType = nil
        #expect(await refusal { try await all.verify(der: try mint(unknown)) } == .environmentMismatch)
    }

    @Test func volumePurchaseReceiptTypesNameTheirEnvironment() {
        #expect(AppReceiptContents(receiptType: "ProductionVPP").environment == .production)
        #expect(AppReceiptContents(receiptType: "ProductionVPPSandbox").environment == .sandbox)
        #expect(AppReceiptContents(receiptType: "Xcode").environment == .xcode)
    }

    @Test func refusalsNeverRepeatTheReceiptsValues() async throws {
        let secret = "com.attacker.\(String(repeating: "x", count: 40))"
        do {
            _ = try await verifier.verify(der: try mint(sampleReceipt(bundle: secret)))
            Issue.record("accepted another app's receipt")
        } catch let error as AppReceiptVerificationError {
            #expect(!error.description.contains("attacker"))
            #expect(!error.debugDescription.contains("attacker"))
        }
    }
}
