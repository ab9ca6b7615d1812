import SwiftASN1

/// The parts of a certificate its issuer's signature does not cover — the outer algorithm and the
/// signature BIT STRING — held to RFC 5280, because swift-certificates reads them leniently: it
/// ignores the BIT STRING's unused-bits octet and does not compare the outer algorithm with the
/// one inside the signed part. Left so, a receipt changed there would still verify.
enum CertificateEnvelope {
    /// `Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }`:
    /// the signature a whole number of octets, `signatureAlgorithm` the same as the signed
    /// `tbsCertificate.signature` (RFC 5280 §4.1.1.2).
    static func check(_ node: ASN1Node, index: Int) throws {
        guard case .constructed(let nodes) = node.content else { throw failure(index, "is not a SEQUENCE") }
        let parts = Array(nodes)
        guard parts.count == 3, parts[2].identifier == .bitString, case .primitive(let signature) = parts[2].content,
              signature.first == 0
        else { throw failure(index, "signature is not a whole number of octets") }
        guard case .constructed(let signed) = parts[0].content else { throw failure(index, "tbsCertificate is not a SEQUENCE") }
        let fields = Array(signed)
        // TBSCertificate ::= SEQUENCE { version [0] EXPLICIT DEFAULT v1, serialNumber, signature, … }
        let algorithmIndex = fields.first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) ? 2 : 1
        guard fields.count > algorithmIndex, fields[algorithmIndex].encodedBytes == parts[1].encodedBytes else {
            throw failure(index, "signatureAlgorithm differs from the signed one")
        }
    }

    private static func failure(_ index: Int, _ problem: String) -> AppReceiptVerificationError {
        AppReceiptVerificationError(.unparsableCertificate, "certificate \(index): \(problem)")
    }
}
