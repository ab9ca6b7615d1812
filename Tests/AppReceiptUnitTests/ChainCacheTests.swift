import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

@Suite("App receipts: verified chains are cached, never trusted beyond their validity")
struct ChainCacheTests {
    @Test func aCachedChainGivesTheSameResultAsAFreshOne() async throws {
        let verifier = try makeVerifier()
        let receipt = try mint()
        let first = try await verifier.verify(der: receipt)
        #expect(verifier.cachedChainCount == 1)
        #expect(try await verifier.verify(der: receipt) == first)
        #expect(try await verifier.verify(der: try mint(sampleReceipt(createdAt: reference.addingTimeInterval(-60)))).creationDate == reference.addingTimeInterval(-60))
        #expect(verifier.cachedChainCount == 1)
    }

    @Test func aCachedChainStillChecksEverySignatureAndClaim() async throws {
        let verifier = try makeVerifier()
        _ = try await verifier.verify(der: try mint())
        let tampered = try #require(replacingFirst(Array("coins.100".utf8), in: try mint(), with: Array("coins.999".utf8)))
        #expect(await refusal { try await verifier.verify(der: tampered) } == .badSignature)
        #expect(await refusal { try await verifier.verify(der: try mint(sampleReceipt(bundle: "com.example.other"))) } == .bundleIdMismatch)
        #expect(await refusal { try await verifier.verify(der: try mint(sampleReceipt(environment: .production))) } == .environmentMismatch)
    }

    @Test func aReceiptMadeAfterTheCachedChainExpiredIsValidatedInFullAndRefused() async throws {
        let verifier = try makeVerifier()
        _ = try await verifier.verify(der: try mint())
        let later = reference.addingTimeInterval(400 * day)   // past the leaf's notAfter
        #expect(await refusal { try await verifier.verify(der: try mint(sampleReceipt(createdAt: later))) } == .certificateExpired)
    }

    @Test func theCacheHoldsAtMostItsCapacityAndDropsTheLeastRecentlyUsed() async throws {
        let others = try (0..<2).map { _ in try makePKI() }
        let verifier = try makeVerifier(trusting: [pki.root] + others.map(\.root), chainCacheCapacity: 2)
        for identity in [pki.receiptSigner, others[0].receiptSigner, pki.receiptSigner, others[1].receiptSigner] {
            _ = try await verifier.verify(der: try mint(by: identity))
        }
        #expect(verifier.cachedChainCount == 2)
    }

    @Test func theCacheKeyIsTheCertificatesAndSignerNotTheContent() throws {
        let a = try CMSSignedData(der: try mint(), limits: AppReceiptLimits())
        let b = try CMSSignedData(der: try mint(sampleReceipt(bundle: "com.example.other")), limits: AppReceiptLimits())
        #expect(ReceiptChainCache.key(for: a) == ReceiptChainCache.key(for: b))
        var reordered = pki.receiptSigner
        reordered.certificates.reverse()
        let c = try CMSSignedData(der: try mint(by: reordered), limits: AppReceiptLimits())
        #expect(ReceiptChainCache.key(for: a) != ReceiptChainCache.key(for: c))
    }
}
