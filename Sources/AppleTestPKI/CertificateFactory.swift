import Foundation
import SwiftASN1
import X509

/// Issues the three kinds of certificate in an Apple-shaped chain, with the extensions RFC 5280
/// validation looks for (basic constraints, key usage, key identifiers) and, optionally, Apple's
/// marker OID and an OCSP responder address.
enum CertificateFactory {
    enum Role { case root, intermediate, leaf }

    static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]
    static let receiptSigningLeafOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]

    static func issue(
        _ role: Role,
        subject: DistinguishedName,
        publicKey: Certificate.PublicKey,
        issuer: DistinguishedName,
        issuerPublicKey: Certificate.PublicKey,
        issuerKey: Certificate.PrivateKey,
        signatureAlgorithm: Certificate.SignatureAlgorithm,
        validity: ClosedRange<Date>,
        marker: ASN1ObjectIdentifier?,
        ocspResponder: String? = nil
    ) throws -> Certificate {
        let extensions = try Certificate.Extensions {
            switch role {
            case .root:
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            case .intermediate:
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            case .leaf:
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            }
            SubjectKeyIdentifier(hash: publicKey)
            AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: issuerPublicKey).keyIdentifier)
            if let marker {
                // Apple's marker extensions hold an ASN.1 NULL.
                Certificate.Extension(oid: marker, critical: false, value: [0x05, 0x00])
            }
            if let ocspResponder {
                AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(ocspResponder))])
            }
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound,
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: signatureAlgorithm,
            extensions: extensions,
            issuerPrivateKey: issuerKey
        )
    }
}
