import _CryptoExtras
import Crypto
import Foundation
import X509

extension RSATestPKI {
    /// An RSA PKI laid out and broken like `TestPKI(options)`: subject names, the instant validity is
    /// laid around, the Apple OIDs, the leaf's validity. For receipt tests that need a chain broken
    /// one way; the OCSP responder option is ignored (receipts are verified offline).
    public init(_ options: TestPKI.Options) throws {
        let day: TimeInterval = 86_400
        let t = options.reference
        rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        intermediateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        leafKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rootPublic = Certificate.PublicKey(rootKey.publicKey)
        let intermediatePublic = Certificate.PublicKey(intermediateKey.publicKey)
        root = try CertificateFactory.issue(
            .root, subject: options.names.root, publicKey: rootPublic,
            issuer: options.names.root, issuerPublicKey: rootPublic, issuerKey: Certificate.PrivateKey(rootKey),
            signatureAlgorithm: .sha256WithRSAEncryption, validity: t.addingTimeInterval(-365 * day)...t.addingTimeInterval(20 * 365 * day),
            marker: nil
        )
        intermediate = try CertificateFactory.issue(
            .intermediate, subject: options.names.intermediate, publicKey: intermediatePublic,
            issuer: options.names.root, issuerPublicKey: rootPublic, issuerKey: Certificate.PrivateKey(rootKey),
            signatureAlgorithm: .sha256WithRSAEncryption, validity: t.addingTimeInterval(-365 * day)...t.addingTimeInterval(10 * 365 * day),
            marker: options.intermediateCarriesOID ? CertificateFactory.wwdrIntermediateOID : nil
        )
        leaf = try CertificateFactory.issue(
            .leaf, subject: options.names.leaf, publicKey: Certificate.PublicKey(leafKey.publicKey),
            issuer: options.names.intermediate, issuerPublicKey: intermediatePublic, issuerKey: Certificate.PrivateKey(intermediateKey),
            signatureAlgorithm: .sha256WithRSAEncryption,
            validity: options.leafValidity ?? t.addingTimeInterval(-30 * day)...t.addingTimeInterval(365 * day),
            marker: options.leafCarriesOID ? CertificateFactory.receiptSigningLeafOID : nil
        )
    }
}
