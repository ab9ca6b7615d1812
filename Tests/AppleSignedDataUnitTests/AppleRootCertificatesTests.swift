import Crypto
import SwiftASN1
import Testing
import X509
@testable import AppleSignedData

@Suite("Pinned Apple roots")
struct AppleRootCertificatesTests {
    static func fingerprint(_ pem: String) throws -> String {
        let der = try PEMDocument(pemString: pem).derBytes
        return SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    @Test func appleRootCAG3MatchesApplesPublishedFingerprint() throws {
        #expect(try Self.fingerprint(AppleRootCertificates.appleRootCAG3PEM) == AppleRootCertificates.appleRootCAG3SHA256)
        #expect(AppleRootCertificates.appleRootCAG3SHA256
            == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79")
        #expect(AppleRootCertificates.appleRootCAG3.subject.description.contains("Apple Root CA - G3"))
    }

    @Test func appleIncRootMatchesApplesPublishedFingerprint() throws {
        #expect(try Self.fingerprint(AppleRootCertificates.appleIncRootPEM) == AppleRootCertificates.appleIncRootSHA256)
        #expect(AppleRootCertificates.appleIncRootSHA256
            == "B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24")
        #expect(AppleRootCertificates.appleIncRoot.subject.description.contains("Apple Root CA"))
    }

    @Test func byDefaultOnlyAppleRootCAG3IsTrusted() {
        let configuration = SignedDataVerifier.Configuration(bundleIds: ["a"], environment: .production)
        #expect(configuration.trustedRoots == [AppleRootCertificates.appleRootCAG3])
    }
}
