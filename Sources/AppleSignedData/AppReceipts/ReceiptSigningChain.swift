import SwiftASN1
import X509

/// The signer's certificate and its issuer, found among the certificates a receipt carries. Nothing
/// here is trusted yet: the chain is validated to a configured root afterwards, and a root the
/// receipt carries is never an anchor. Every certificate the receipt carries must be the signer, its
/// issuer, or byte for byte a configured root: the signature does not cover the certificates, so
/// nothing unexplained may ride along.
struct ReceiptSigningChain {
    var leaf: Certificate
    var intermediate: Certificate
    var signerKey: ReceiptSignerKey

    init(_ signedData: CMSSignedData, trustedRoots: [[UInt8]], trustedSubjects: [DistinguishedName]) throws {
        let certificates = try signedData.certificates.enumerated().map { index, node in
            guard node.identifier == .sequence, let certificate = UntrustedCertificate.parse(Array(node.encodedBytes)) else {
                throw AppReceiptVerificationError(.unparsableCertificate, "certificate \(index) is not DER X.509")
            }
            try CertificateEnvelope.check(node, index: index)
            return certificate
        }
        guard let leafIndex = certificates.firstIndex(where: { Self.identifies(signedData.signer.identifier, $0) }) else {
            throw AppReceiptVerificationError(.missingCertificates, "no certificate matches the signer identifier")
        }
        let leaf = certificates[leafIndex]
        guard leaf.subject != leaf.issuer else {
            throw AppReceiptVerificationError(.chainNotTrusted, "the signer is self-signed (as Xcode's StoreKit test receipts are)")
        }
        guard let intermediateIndex = certificates.indices.first(where: { $0 != leafIndex && certificates[$0].subject == leaf.issuer }) else {
            throw AppReceiptVerificationError(.missingCertificates, "no certificate issued the signer's")
        }
        for (index, node) in signedData.certificates.enumerated() where index != leafIndex && index != intermediateIndex {
            guard trustedRoots.contains(where: { $0.elementsEqual(node.encodedBytes) }) else {
                // A self-signed issuer of the intermediate that no trusted root is named as: a root
                // we do not know (Apple's next one?), not a look-alike of ours.
                let issuer = certificates[intermediateIndex].issuer
                if !trustedSubjects.contains(issuer), certificates[index].subject == issuer, certificates[index].issuer == issuer {
                    throw AppReceiptVerificationError(.unknownRoot, "certificate \(index) is a root that is not configured")
                }
                throw AppReceiptVerificationError(.chainNotTrusted, "certificate \(index) is neither on the signing path nor a configured root")
            }
        }
        self.leaf = leaf
        self.intermediate = certificates[intermediateIndex]
        self.signerKey = try ReceiptSignerKey(leaf.publicKey)
    }

    private static func identifies(_ identifier: CMSSignerInfo.Identifier, _ certificate: Certificate) -> Bool {
        switch identifier {
        case .issuerAndSerialNumber(let issuer, let serialNumber):
            return Certificate.SerialNumber(bytes: serialNumber) == certificate.serialNumber
                && (try? DistinguishedName(derEncoded: issuer)) == certificate.issuer
        case .subjectKeyIdentifier(let keyIdentifier):
            guard let extensionValue = try? certificate.extensions.subjectKeyIdentifier else { return false }
            return extensionValue.keyIdentifier == keyIdentifier
        }
    }
}
