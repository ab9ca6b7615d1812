import _CryptoExtras
import Crypto
import X509

/// Who signs a minted receipt: the signer certificate, its private key, and the certificates the
/// receipt carries. Apple's receipts carry signer, intermediate and root, in that order.
public struct ReceiptSigningIdentity: @unchecked Sendable {
    // @unchecked: swift-crypto 3's keys are not marked Sendable; these are immutable.
    public enum PrivateKey {
        /// PKCS #1 v1.5, as Apple's receipt signing certificates sign.
        case rsa(_RSA.Signing.PrivateKey)
        /// ECDSA with SHA-256, for an EC signer.
        case p256(P256.Signing.PrivateKey)
    }

    /// The certificate the signer info names (by issuer and serial number).
    public var certificate: Certificate
    public var key: PrivateKey
    /// The certificates field, in order. Empty: no certificates field at all.
    public var certificates: [Certificate]

    public init(certificate: Certificate, key: PrivateKey, certificates: [Certificate]) {
        self.certificate = certificate
        self.key = key
        self.certificates = certificates
    }
}

extension RSATestPKI {
    /// The leaf signs with its RSA key; the receipt carries leaf, intermediate and root, as Apple's do.
    public var receiptSigner: ReceiptSigningIdentity {
        ReceiptSigningIdentity(certificate: leaf, key: .rsa(leafKey), certificates: [leaf, intermediate, root])
    }
}

extension TestPKI {
    /// The leaf signs with its P-256 key; the receipt carries leaf, intermediate and root.
    public var receiptSigner: ReceiptSigningIdentity {
        ReceiptSigningIdentity(certificate: leaf, key: .p256(leafKey), certificates: [leaf, intermediate, root])
    }
}
