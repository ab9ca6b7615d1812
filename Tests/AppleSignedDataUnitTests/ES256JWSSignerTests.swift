import AppleTestPKI
import Crypto
import Foundation
import Testing
@_spi(FixedExpiryValidationTime) import X509
@testable import AppleSignedData

@Suite("ES256 JWS signing")
struct ES256JWSSignerTests {
    @Test func theHeaderCarriesES256AndTheChainAndTheSignatureIsRawRS() throws {
        let pki = try makePKI()
        let jws = try pki.sign(transaction())
        let parts = jws.split(separator: ".")
        let header = try JSONDecoder().decode(JWSHeader.self, from: Data(try #require(Base64URL.decode(Array(parts[0].utf8)))))
        #expect(header == JWSHeader(alg: "ES256", x5c: pki.x5c))
        let raw = try #require(Base64URL.decode(Array(parts[2].utf8)))
        #expect(raw.count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: raw)
        #expect(pki.leafKey.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test func theAlgorithmCannotBeOverridden() throws {
        let signer = try ES256JWSSigner(privateKey: P256.Signing.PrivateKey(), header: JWSHeader(alg: "none"))
        let header = Base64URL.decode(Array(signer.headerSegment.utf8)).map { String(decoding: $0, as: UTF8.self) }
        #expect(header == #"{"alg":"ES256"}"#)
    }

    @Test func base64URLRoundTripsEveryLengthAndRefusesOtherAlphabets() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let standard = Data(bytes).base64EncodedString()
            let expected = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(Array(expected.utf8)) == bytes)
        }
        #expect(Base64URL.decode(Array("ab+/".utf8)) == nil)
        #expect(Base64URL.decode(Array("YQ==".utf8)) == nil)
        #expect(Base64URL.decode(Array("abcde".utf8)) == nil)
        // A stray character is found wherever it stands: in a full group or in the last, short one.
        for text in ["abcd+fgh", "abcdefg/", "abcdef=", "abcde\u{0}", "abcdefg\u{80}", "ab.", "a b"] {
            #expect(Base64URL.decode(Array(text.utf8)) == nil, "\(text.debugDescription)")
        }
        // Contiguous or not, the same bytes.
        let text = Base64URL.encode(Array(0..<200).map(UInt8.init))
        #expect(Base64URL.decode(text.utf8) == Base64URL.decode(Array(text.utf8)))
        #expect(Base64URL.decode(Array(text.utf8)) == Array(0..<200).map(UInt8.init))
    }
}

@Suite("Test PKI")
struct TestPKITests {
    @Test func theRootExportsAsPEMAndDERThatParseBackToIt() throws {
        let pki = try makePKI()
        #expect(try Certificate(pemEncoded: pki.rootPEM) == pki.root)
        #expect(try Certificate(derEncoded: pki.rootDER) == pki.root)
    }

    @Test func theRSAVariantChainsLeafToIntermediateToRootWithApplesOIDs() async throws {
        let pki = try RSATestPKI(reference: reference)
        #expect(pki.leaf.issuer == pki.intermediate.subject)
        #expect(pki.intermediate.issuer == pki.root.subject)
        #expect(AppleChainPolicy.carries(AppleChainPolicy.intermediateOID, pki.intermediate))
        #expect(AppleChainPolicy.carries(AppleChainPolicy.leafOID, pki.leaf))
        var verifier = Verifier(rootCertificates: CertificateStore([pki.root])) {
            RFC5280Policy(fixedExpiryValidationTime: reference)
            AppleChainPolicy()
        }
        let result = await verifier.validate(leaf: pki.leaf, intermediates: CertificateStore([pki.intermediate]))
        guard case .validCertificate(let chain) = result else {
            Issue.record("RSA chain did not validate: \(result)")
            return
        }
        #expect(Array(chain) == [pki.leaf, pki.intermediate, pki.root])
        #expect(try Certificate(pemEncoded: pki.rootPEM) == pki.root)
    }
}
