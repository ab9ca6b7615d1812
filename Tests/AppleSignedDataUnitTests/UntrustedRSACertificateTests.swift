import AppleTestPKI
import Crypto
import Foundation
import Testing
import X509
@testable import AppleSignedData

@Suite("Signed data: an x5c certificate with an RSA key BoringSSL refuses is refused, not a crash")
struct UntrustedRSACertificateTests {
    @Test func anEvenRSAModulusInX5CIsAnUnparsableCertificate() async throws {
        // swift-crypto 3.12 frees such a key twice and BoringSSL aborts (see UntrustedCertificate).
        let rsa = try RSATestPKI()
        var leaf = try [UInt8](#require(Data(base64Encoded: TestPKI.x5c([rsa.leaf])[0])))
        let exponent = try #require(leaf.firstRange(of: [0x02, 0x03, 0x01, 0x00, 0x01] as [UInt8]))
        leaf[exponent.lowerBound - 1] &= 0xFE
        let x5c = [Data(leaf).base64EncodedString()] + TestPKI.x5c([rsa.intermediate, rsa.root])
        let jws = try ES256JWSSigner(privateKey: P256.Signing.PrivateKey(), header: JWSHeader(x5c: x5c)).sign(transaction())
        let verifier = try makeVerifier(trusting: [rsa.root])
        #expect(await refusal { try await verifier.verifyTransaction(jws) } == .unparsableCertificate)
    }
}
