import _CryptoExtras
import Crypto
import Foundation
import X509

/// The RSA-2048 twin of `TestPKI` (root, WWDR-marked intermediate, receipt-signing leaf), for the
/// PKCS#7 app receipts signed under the legacy RSA Apple Inc. root. Key generation takes a few
/// hundred milliseconds, so build one per test suite.
public struct RSATestPKI: @unchecked Sendable {
    // @unchecked: the RSA keys are immutable.
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    public let rootKey: _RSA.Signing.PrivateKey
    public let intermediateKey: _RSA.Signing.PrivateKey
    public let leafKey: _RSA.Signing.PrivateKey

    public init(names: TestPKINames = .appleLike, reference: Date = Date()) throws {
        let day: TimeInterval = 86_400
        rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        intermediateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        leafKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rootPublic = Certificate.PublicKey(rootKey.publicKey)
        let intermediatePublic = Certificate.PublicKey(intermediateKey.publicKey)
        root = try CertificateFactory.issue(
            .root, subject: names.root, publicKey: rootPublic,
            issuer: names.root, issuerPublicKey: rootPublic, issuerKey: Certificate.PrivateKey(rootKey),
            signatureAlgorithm: .sha256WithRSAEncryption, validity: reference.addingTimeInterval(-365 * day)...reference.addingTimeInterval(20 * 365 * day),
            marker: nil
        )
        intermediate = try CertificateFactory.issue(
            .intermediate, subject: names.intermediate, publicKey: intermediatePublic,
            issuer: names.root, issuerPublicKey: rootPublic, issuerKey: Certificate.PrivateKey(rootKey),
            signatureAlgorithm: .sha256WithRSAEncryption, validity: reference.addingTimeInterval(-365 * day)...reference.addingTimeInterval(10 * 365 * day),
            marker: CertificateFactory.wwdrIntermediateOID
        )
        leaf = try CertificateFactory.issue(
            .leaf, subject: names.leaf, publicKey: Certificate.PublicKey(leafKey.publicKey),
            issuer: names.intermediate, issuerPublicKey: intermediatePublic, issuerKey: Certificate.PrivateKey(intermediateKey),
            signatureAlgorithm: .sha256WithRSAEncryption, validity: reference.addingTimeInterval(-30 * day)...reference.addingTimeInterval(365 * day),
            marker: CertificateFactory.receiptSigningLeafOID
        )
    }

    /// The root as PEM, to configure a receipt verifier to trust this PKI.
    public var rootPEM: String { TestPKI.pem(root) }
    /// The root as DER.
    public var rootDER: [UInt8] { TestPKI.derBytes(root) }
}
