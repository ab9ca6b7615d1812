import Crypto
import SwiftASN1
import X509

extension Certificate {
    /// SHA-256 of the certificate's DER, as colon-separated upper-case hex — the form Apple
    /// publishes its roots' fingerprints in (`AppleRootCertificates`), for logs and metrics that
    /// say which roots are trusted.
    public var sha256Fingerprint: String {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(self)) != nil else { return "?" }
        return SHA256.hash(data: serializer.serializedBytes).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
