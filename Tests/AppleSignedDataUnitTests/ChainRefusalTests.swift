import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

@Suite("Signed data: only chains to a configured root, marked by Apple and valid at signedDate")
struct ChainRefusalTests {
    @Test func anAttackersLookAlikePKIIsNotTrustedEvenWithApplesNames() async throws {
        let pki = try makePKI()
        let attacker = try makePKI()   // same subject names, its own keys
        #expect(attacker.root.subject == pki.root.subject)
        let verifier = try makeVerifier(trusting: [pki.root])
        #expect(await refusal { try await verifier.verifyTransaction(try attacker.sign(transaction())) } == .chainNotTrusted)
        // Sending the trusted root itself as x5c[2] changes nothing: x5c[2] is never an anchor.
        let withTrustedRoot = try attacker.sign(transaction(), x5c: TestPKI.x5c([attacker.leaf, attacker.intermediate, pki.root]))
        #expect(await refusal { try await verifier.verifyTransaction(withTrustedRoot) } == .chainNotTrusted)
    }

    @Test func theDefaultVerifierTrustsOnlyTheRealAppleRootNotALookAlike() async throws {
        let lookAlike = try makePKI()
        let verifier = try SignedDataVerifier(configuration: .init(bundleIds: [bundleId], environment: .sandbox, now: { reference }))
        #expect(await refusal { try await verifier.verifyTransaction(try lookAlike.sign(transaction())) } == .chainNotTrusted)
    }

    @Test func aSelfSignedLeafIsNotTrusted() async throws {
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root])
        let (leaf, key) = try pki.selfSignedLeaf()
        let signer = try ES256JWSSigner(privateKey: key, header: JWSHeader(x5c: TestPKI.x5c([leaf, pki.intermediate, pki.root])))
        #expect(await refusal { try await verifier.verifyTransaction(try signer.sign(transaction())) } == .chainNotTrusted)
    }

    @Test func aCertificateIssuedByTheRootDirectlyCannotSign() async throws {
        // The intermediate signs as if it were a leaf: its only path is intermediate → root.
        let pki = try makePKI()
        let verifier = try makeVerifier(trusting: [pki.root])
        let signer = try ES256JWSSigner(privateKey: pki.intermediateKey, header: JWSHeader(x5c: TestPKI.x5c([pki.intermediate, pki.root, pki.root])))
        #expect(await refusal { try await verifier.verifyTransaction(try signer.sign(transaction())) } == .chainNotTrusted)
    }

    @Test func anIntermediateWithoutTheWWDROIDIsRefused() async throws {
        let pki = try makePKI { $0.intermediateCarriesOID = false }
        let verifier = try makeVerifier(trusting: [pki.root])
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(transaction())) } == .intermediateOIDMissing)
    }

    @Test func aLeafWithoutTheReceiptSigningOIDIsRefused() async throws {
        let pki = try makePKI { $0.leafCarriesOID = false }
        let verifier = try makeVerifier(trusting: [pki.root])
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(transaction())) } == .leafOIDMissing)
    }

    @Test func aLeafExpiredAtSignedDateIsRefusedThoughValidationHappensLater() async throws {
        let pki = try makePKI { $0.leafValidity = reference.addingTimeInterval(-400 * day)...reference.addingTimeInterval(-1 * day) }
        let verifier = try makeVerifier(trusting: [pki.root])
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(transaction())) } == .certificateExpired)
    }

    @Test func aPayloadSignedWhileTheLeafWasValidStaysValidAfterTheLeafExpires() async throws {
        // Offline mode judges at signedDate: what Apple signed yesterday does not lapse today.
        let pki = try makePKI { $0.leafValidity = reference.addingTimeInterval(-400 * day)...reference.addingTimeInterval(-1 * day) }
        let verifier = try makeVerifier(trusting: [pki.root], now: reference)
        _ = try await verifier.verifyTransaction(try pki.sign(transaction(signedAt: reference.addingTimeInterval(-2 * day))))
    }

    @Test func aLeafNotYetValidAtSignedDateIsRefused() async throws {
        let pki = try makePKI { $0.leafValidity = reference.addingTimeInterval(1 * day)...reference.addingTimeInterval(400 * day) }
        let verifier = try makeVerifier(trusting: [pki.root])
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(transaction())) } == .certificateNotYetValid)
    }

    @Test func aPayloadWithoutSignedDateIsJudgedAtTheCurrentTime() async throws {
        let pki = try makePKI { $0.leafValidity = reference.addingTimeInterval(-400 * day)...reference.addingTimeInterval(-1 * day) }
        var undated = transaction(signedAt: reference.addingTimeInterval(-2 * day))
        undated.signedDate = nil
        let verifier = try makeVerifier(trusting: [pki.root], now: reference)
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(undated)) } == .certificateExpired)
        let earlier = try makeVerifier(trusting: [pki.root], now: reference.addingTimeInterval(-2 * day))
        _ = try await earlier.verifyTransaction(try pki.sign(undated))
    }
}
