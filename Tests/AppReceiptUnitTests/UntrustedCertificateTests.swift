import AppleTestPKI
import Foundation
import SwiftASN1
import Testing
import X509
@testable import AppleSignedData

@Suite("Certificates from messages: a bad RSA key is refused, not a crash")
struct UntrustedCertificateTests {
    /// A DER certificate whose RSA public exponent is `exponent` (the signature no longer matches,
    /// which does not matter: the key is read first).
    static func certificate(_ certificate: Certificate, exponent: [UInt8]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try #require(replacingFirst([0x02, 0x03, 0x01, 0x00, 0x01], in: serializer.serializedBytes, with: [0x02, UInt8(exponent.count)] + exponent))
    }

    @Test func aKeyBoringSSLRefusesIsRefusedBeforeSwiftCryptoDoubleFreesIt() throws {
        // Even, negative, not minimally encoded (same length as 65537, so the DER stays well
        // formed): swift-certificates hands each to swift-crypto, which frees the key twice when
        // BoringSSL refuses it, and the process aborts.
        for exponent: [UInt8] in [[0x01, 0x00, 0x02], [0x81, 0x00, 0x01], [0x00, 0x00, 0x03]] {
            let der = try Self.certificate(pki.leaf, exponent: exponent)
            let parsable = UntrustedCertificate.rsaKeyIsParsable(der)
            #expect(!parsable, "exponent \(exponent)")
            #expect(UntrustedCertificate.parse(der) == nil)
        }
        let odd = try Self.certificate(pki.leaf, exponent: [0x7F, 0xFF, 0xFF])
        #expect(UntrustedCertificate.rsaKeyIsParsable(odd))
        // An even modulus (the fuzzer's find: one bit of the root a receipt carried).
        var evenModulus = try Self.certificate(pki.leaf, exponent: [0x01, 0x00, 0x01])
        let exponent = try #require(evenModulus.firstRange(of: [0x02, 0x03, 0x01, 0x00, 0x01] as [UInt8]))
        evenModulus[exponent.lowerBound - 1] &= 0xFE
        let parsable = UntrustedCertificate.rsaKeyIsParsable(evenModulus)
        #expect(!parsable)
    }

    @Test func goodRSAAndECCertificatesStillParse() throws {
        var options = TestPKI.Options()
        options.reference = reference
        for certificate in [pki.leaf, pki.root, try TestPKI(options).leaf, AppleRootCertificates.appleIncRoot, AppleRootCertificates.appleRootCAG3] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            #expect(UntrustedCertificate.parse(serializer.serializedBytes) == certificate)
        }
    }

    @Test func aReceiptCarryingSuchAKeyIsRefusedAsAnUnparsableCertificate() async throws {
        let receipt = try mint()
        let broken = try #require(replacingFirst([0x02, 0x03, 0x01, 0x00, 0x01], in: receipt, with: [0x02, 0x03, 0x01, 0x00, 0x02]))
        #expect(await refusal { try await makeVerifier().verify(der: broken) } == .unparsableCertificate)
    }
}
