import AppleTestPKI
import Foundation
import Testing
@testable import AppleSignedData

/// The JWS inside a notification: verified on their own (the worker, which acts on them), or
/// taken on the notification's signature, which covers their bytes (the API, which only stores).
/// Either way their claims are checked and bytes that do not parse are refused.
@Suite("Nested JWS: verified on their own, or covered by the notification's signature")
struct NestedJWSTests {
    let pki: TestPKI
    let verifier: SignedTransactionVerifier

    init() throws {
        pki = try makePKI()
        verifier = try SignedTransactionVerifier(trustedRoots: [pki.root], bundleIds: [bundleId], appAppleId: appAppleId)
    }

    /// A production REFUND carrying `signedTransactionInfo`, signed by `signer` (the trusted PKI).
    func notification(carrying signedTransactionInfo: String, signedBy signer: TestPKI? = nil) throws -> String {
        try (signer ?? pki).sign(refundNotification(carrying: signedTransactionInfo))
    }

    @Test func bothWaysReadTheSameTransaction() async throws {
        let signed = try notification(carrying: try pki.sign(transaction(environment: .production)))
        let onTheirOwn = try await verifier.verifyNotification(signed, nested: .verifiedOnTheirOwn)
        let covered = try await verifier.verifyNotification(signed, nested: .coveredByTheNotification)
        #expect(onTheirOwn == covered)
        #expect(covered.transaction?.transactionId == "2000000123456789")
        #expect(try covered.identity().originalTransactionID == "2000000123456789")
    }

    /// Only Apple can sign the notification, and its signature covers the inner bytes: an inner
    /// signature that does not verify is refused where it is checked, and not looked at where the
    /// notification's signature is taken for it.
    @Test func anInnerSignatureIsCheckedOnlyWhenVerifiedOnItsOwn() async throws {
        let inner = try pki.sign(transaction(environment: .production)).split(separator: ".")
        let other = try pki.sign(transaction(environment: .production, bundle: bundleId + ".other")).split(separator: ".")
        let wrongSignature = [inner[0], inner[1], other[2]].joined(separator: ".")
        let signed = try notification(carrying: wrongSignature)
        #expect(await refusal { try await verifier.verifyNotification(signed, nested: .verifiedOnTheirOwn) } == .badSignature)
        let covered = try await verifier.verifyNotification(signed, nested: .coveredByTheNotification)
        #expect(covered.transaction?.productId == "coins.100")
    }

    @Test func anInnerTransactionForAnotherAppIsRefusedEitherWay() async throws {
        let signed = try notification(carrying: try pki.sign(transaction(environment: .production, bundle: "com.example.other")))
        for nested in [SignedTransactionVerifier.NestedJWS.verifiedOnTheirOwn, .coveredByTheNotification] {
            #expect(await refusal { try await verifier.verifyNotification(signed, nested: nested) } == .bundleIdMismatch, "\(nested)")
        }
    }

    @Test func innerBytesThatAreNotAJWSAreRefusedEitherWay() async throws {
        for garbage in ["a.b.c", "not a jws", ""] {
            let signed = try notification(carrying: garbage)
            for nested in [SignedTransactionVerifier.NestedJWS.verifiedOnTheirOwn, .coveredByTheNotification] {
                #expect(await refusal { try await verifier.verifyNotification(signed, nested: nested) } != nil, "\(garbage) \(nested)")
            }
        }
    }

    /// The notification itself is always verified: covering its inner JWS by its signature needs
    /// that signature to be Apple's.
    @Test func theNotificationItselfIsVerifiedEitherWay() async throws {
        let stranger = try makePKI()
        let signed = try notification(carrying: try pki.sign(transaction(environment: .production)), signedBy: stranger)
        for nested in [SignedTransactionVerifier.NestedJWS.verifiedOnTheirOwn, .coveredByTheNotification] {
            #expect(await refusal { try await verifier.verifyNotification(signed, nested: nested) } != nil, "\(nested)")
        }
    }
}
