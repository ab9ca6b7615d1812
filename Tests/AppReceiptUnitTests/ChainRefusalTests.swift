import _CryptoExtras
import AppleTestPKI
import Foundation
import Testing
import X509
@testable import AppleSignedData

@Suite("App receipts: only chains to a configured root, marked by Apple and valid at the creation date")
struct ChainRefusalTests {
    @Test func anAttackersLookAlikePKIIsNotTrustedEvenWithApplesNames() async throws {
        let attacker = try makePKI()   // same subject names, its own keys
        #expect(attacker.root.subject == pki.root.subject)
        let verifier = try makeVerifier()
        #expect(await refusal { try await verifier.verify(der: try mint(by: attacker.receiptSigner)) } == .chainNotTrusted)
        // Carrying the trusted root itself changes nothing: a root in the receipt is never an anchor.
        var withTrustedRoot = attacker.receiptSigner
        withTrustedRoot.certificates = [attacker.leaf, attacker.intermediate, pki.root]
        #expect(await refusal { try await verifier.verify(der: try mint(by: withTrustedRoot)) } == .chainNotTrusted)
    }

    @Test func theDefaultVerifierTrustsApplesRootsNotALookAlike() async throws {
        let verifier = try AppReceiptVerifier(configuration: .init(bundleIds: [bundleId], environments: [.sandbox], now: { reference }))
        #expect(verifier.configuration.trustedRoots == [AppleRootCertificates.appleIncRoot, AppleRootCertificates.appleRootCAG3])
        // The test names list Apple's attributes in another order than Apple's root does, so the
        // verifier sees a root it does not know (callers then ask Apple); refused either way.
        let reason = await refusal { try await verifier.verify(der: try mint()) }
        #expect(reason == .chainNotTrusted || reason == .unknownRoot)
    }

    @Test func aCertificateIssuedByTheRootDirectlyCannotSign() async throws {
        // The intermediate signs as if it were the leaf: its only path is intermediate → root.
        let identity = ReceiptSigningIdentity(certificate: pki.intermediate, key: .rsa(pki.intermediateKey), certificates: [pki.intermediate, pki.root])
        let verifier = try makeVerifier()
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity)) } == .chainNotTrusted)
    }

    @Test func aSelfSignedSignerLikeXcodesStoreKitCertificateIsNotTrusted() async throws {
        var options = TestPKI.Options()
        options.reference = reference
        let (certificate, key) = try TestPKI(options).selfSignedLeaf()
        let identity = ReceiptSigningIdentity(certificate: certificate, key: .p256(key), certificates: [certificate])
        let verifier = try makeVerifier(trusting: [certificate], environments: [.xcode])
        #expect(await refusal { try await verifier.verify(der: try mint(sampleReceipt(environment: .xcode), by: identity) { $0.xcodeDoubleWrap = true }) } == .chainNotTrusted)
    }

    @Test func aCertificateThatIsNeitherOnThePathNorATrustedRootIsRefused() async throws {
        let stranger = try makePKI()
        var identity = pki.receiptSigner
        identity.certificates = [pki.leaf, pki.intermediate, stranger.intermediate]
        let verifier = try makeVerifier()
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity)) } == .chainNotTrusted)
    }

    @Test func anIntermediateWithoutTheWWDROIDIsRefused() async throws {
        let broken = try makePKI { $0.intermediateCarriesOID = false }
        let verifier = try makeVerifier(trusting: [broken.root])
        #expect(await refusal { try await verifier.verify(der: try mint(by: broken.receiptSigner)) } == .intermediateOIDMissing)
    }

    @Test func aSignerWithoutTheReceiptSigningOIDIsRefused() async throws {
        let broken = try makePKI { $0.leafCarriesOID = false }
        let verifier = try makeVerifier(trusting: [broken.root])
        #expect(await refusal { try await verifier.verify(der: try mint(by: broken.receiptSigner)) } == .leafOIDMissing)
    }

    @Test func aSignerExpiredAtTheCreationDateIsRefusedThoughItWasValidBefore() async throws {
        let expired = try makePKI { $0.leafValidity = reference.addingTimeInterval(-400 * day)...reference.addingTimeInterval(-1 * day) }
        let verifier = try makeVerifier(trusting: [expired.root])
        #expect(await refusal { try await verifier.verify(der: try mint(by: expired.receiptSigner)) } == .certificateExpired)
    }

    @Test func aSignerNotYetValidAtTheCreationDateIsRefused() async throws {
        let early = try makePKI { $0.leafValidity = reference.addingTimeInterval(1 * day)...reference.addingTimeInterval(400 * day) }
        let verifier = try makeVerifier(trusting: [early.root])
        #expect(await refusal { try await verifier.verify(der: try mint(by: early.receiptSigner)) } == .certificateNotYetValid)
    }

    @Test func aReceiptWithoutACreationDateIsJudgedNow() async throws {
        let expired = try makePKI { $0.leafValidity = reference.addingTimeInterval(-400 * day)...reference.addingTimeInterval(-1 * day) }
        var undated = sampleReceipt(createdAt: reference.addingTimeInterval(-2 * day))
        undated.creationDate = nil
        let receipt = try mint(undated, by: expired.receiptSigner)
        #expect(await refusal { try await makeVerifier(trusting: [expired.root], now: reference).verify(der: receipt) } == .certificateExpired)
        _ = try await makeVerifier(trusting: [expired.root], now: reference.addingTimeInterval(-2 * day)).verify(der: receipt)
    }
}

@Suite("App receipts: the signature covers the content")
struct SignatureRefusalTests {
    let verifier = try! makeVerifier()

    /// `receipt` with one character of its bundle id changed.
    func tampered(_ receipt: [UInt8]) throws -> [UInt8] {
        try #require(replacingFirst(Array(bundleId.utf8), in: receipt, with: Array("com.example.receiptqueuf".utf8)))
    }

    @Test func tamperedContentIsABadSignature() async throws {
        #expect(await refusal { try await verifier.verify(der: try tampered(try mint())) } == .badSignature)
        #expect(await refusal { try await verifier.verify(der: try tampered(try mint { $0.digest = .sha1 })) } == .badSignature)
    }

    @Test func tamperedContentUnderSignedAttributesIsADigestMismatch() async throws {
        #expect(await refusal { try await verifier.verify(der: try tampered(try mint { $0.signedAttributes = true })) } == .digestMismatch)
    }

    @Test func aSignatureByAnotherKeyIsABadSignature() async throws {
        var identity = pki.receiptSigner
        identity.key = .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity)) } == .badSignature)
        identity.key = .rsa(pki.intermediateKey)
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity) { $0.signedAttributes = true }) } == .badSignature)
    }

    @Test func anECSignatureUnderAnRSASignerIsRefused() async throws {
        var identity = pki.receiptSigner
        identity.key = .p256(.init())
        #expect(await refusal { try await verifier.verify(der: try mint(by: identity)) } == .unsupportedAlgorithm)
    }

    @Test func aChainToARootNamedLikeNoTrustedRootIsUnknownNotForged() async throws {
        // Apple's next root, as far as this release can tell: a stranger's name, carried or not.
        let newRoot = try makePKI { $0.names = TestPKINames(
            root: try! DistinguishedName { CommonName("Apple Root CA - G4"); OrganizationName("Apple Inc.") },
            intermediate: TestPKINames.appleReceiptLike.intermediate, leaf: TestPKINames.appleReceiptLike.leaf) }
        let verifier = try makeVerifier()
        #expect(await refusal { try await verifier.verify(der: try mint(by: newRoot.receiptSigner)) } == .unknownRoot)
        var withoutRoot = newRoot.receiptSigner
        withoutRoot.certificates = [newRoot.leaf, newRoot.intermediate]
        #expect(await refusal { try await verifier.verify(der: try mint(by: withoutRoot)) } == .unknownRoot)
        #expect(!AppReceiptVerificationError.Reason.unknownRoot.provesNotAnAppleReceiptOfOurs)
        #expect(AppReceiptVerificationError.Reason.chainNotTrusted.provesNotAnAppleReceiptOfOurs)
    }
}
