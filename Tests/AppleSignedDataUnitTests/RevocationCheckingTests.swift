import AppleTestPKI
import Foundation
import Synchronization
import Testing
import X509
@testable import AppleSignedData

/// An OCSP responder that never answers, recording what it was asked.
final class UnreachableOCSPResponder: OCSPRequester {
    let queried = Mutex<[String]>([])

    struct Unreachable: Error {}

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        queried.withLock { $0.append(uri) }
        return .terminalError(Unreachable())
    }
}

@Suite("Signed data: optional online revocation checks")
struct RevocationCheckingTests {
    @Test func withRevocationCheckingAnUnanswerableOCSPQueryRefusesThePayload() async throws {
        let pki = try makePKI { $0.leafOCSPResponder = "http://ocsp.example.invalid/leaf" }
        let responder = UnreachableOCSPResponder()
        let verifier = try makeVerifier(trusting: [pki.root], revocationChecking: .ocsp(responder))
        #expect(await refusal { try await verifier.verifyTransaction(try pki.sign(transaction())) } == .revocationCheckFailed)
        #expect(responder.queried.withLock { $0 } == ["http://ocsp.example.invalid/leaf"])
    }

    @Test func revocationCheckingIsOffByDefaultAndAsksNoOne() async throws {
        let pki = try makePKI { $0.leafOCSPResponder = "http://ocsp.example.invalid/leaf" }
        let verifier = try makeVerifier(trusting: [pki.root])
        _ = try await verifier.verifyTransaction(try pki.sign(transaction()))
        #expect(SignedDataVerifier.Configuration(bundleIds: ["a"], environment: .sandbox).revocationChecking.isOff)
    }

    @Test func withRevocationCheckingTheChainMustAlsoBeValidNow() async throws {
        let pki = try makePKI { $0.leafValidity = reference.addingTimeInterval(-400 * day)...reference.addingTimeInterval(-1 * day) }
        let signedWhileValid = try pki.sign(transaction(signedAt: reference.addingTimeInterval(-2 * day)))
        let online = try makeVerifier(trusting: [pki.root], revocationChecking: .ocsp(UnreachableOCSPResponder()))
        #expect(await refusal { try await online.verifyTransaction(signedWhileValid) } == .certificateExpired)
    }
}

extension SignedDataVerifier.RevocationChecking {
    var isOff: Bool { if case .off = self { true } else { false } }
}
