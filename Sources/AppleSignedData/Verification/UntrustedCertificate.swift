import _CryptoExtras
import SwiftASN1
import X509

/// Parses a certificate that came in a message (a JWS `x5c`, a receipt's certificates) without
/// letting a bad RSA key crash the process.
///
/// swift-crypto 3.12's `_RSA.Signing.PublicKey(derRepresentation:)` frees its key twice when
/// BoringSSL refuses the key (an even or tiny exponent, a modulus over 16,384 bits, a negative
/// number): the `catch` frees it, then `deinit` does, and BoringSSL aborts. swift-certificates
/// calls it for every RSA certificate it parses, so an attacker's certificate was a remote crash
/// (found by fuzzing the receipt verifier). The key is therefore first checked the way BoringSSL
/// will check it — minimal non-negative INTEGERs, then `RSA_check_key` through
/// `_RSA.Signing.PublicKey(n:e:)`, whose failure path frees once — and such a certificate refused.
enum UntrustedCertificate {
    static func parse(_ der: [UInt8]) -> Certificate? {
        guard rsaKeyIsParsable(der) else { return nil }
        return try? Certificate(derEncoded: der)
    }

    private static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]

    /// `false` only for an RSA key BoringSSL would refuse; anything that is not an RSA
    /// certificate is left to swift-certificates, which parses the same DER and fails first.
    static func rsaKeyIsParsable(_ der: [UInt8]) -> Bool {
        guard let certificate = try? DER.parse(der), let tbs = children(certificate).first else { return true }
        let fields = children(tbs)
        let spkiIndex = fields.first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) ? 6 : 5
        guard fields.count > spkiIndex else { return true }
        let spki = children(fields[spkiIndex])
        guard spki.count == 2, let algorithm = children(spki[0]).first,
              (try? ASN1ObjectIdentifier(derEncoded: algorithm)) == rsaEncryption
        else { return true }
        guard spki[1].identifier == .bitString, case .primitive(let bits) = spki[1].content, bits.first == 0,
              let key = try? DER.parse(Array(bits.dropFirst())), key.identifier == .sequence
        else { return false }
        let numbers = children(key)
        guard numbers.count == 2, let n = unsignedInteger(numbers[0]), let e = unsignedInteger(numbers[1]) else { return false }
        return (try? _RSA.Signing.PublicKey(n: Array(n), e: Array(e))) != nil
    }

    private static func children(_ node: ASN1Node) -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { return [] }
        return Array(nodes)
    }

    /// The content of a minimally encoded, non-negative INTEGER (what BoringSSL's
    /// `BN_parse_asn1_unsigned` accepts).
    private static func unsignedInteger(_ node: ASN1Node) -> ArraySlice<UInt8>? {
        guard node.identifier == .integer, case .primitive(let bytes) = node.content, let first = bytes.first, first < 0x80 else { return nil }
        if first == 0, bytes.count > 1, bytes[bytes.startIndex + 1] < 0x80 { return nil }
        return bytes
    }
}
