import _CryptoExtras
import Crypto
import X509

/// The public key of a receipt's signer certificate: RSA, as Apple's receipt signing certificates
/// are, or P-256 for an EC leaf. Shared between tasks through the chain cache.
///
/// swift-crypto 3 does not mark its key types `Sendable`; the keys are immutable and verification
/// only reads them (see `LeafKey`), so this wrapper says so once.
enum ReceiptSignerKey: @unchecked Sendable {
    case rsa(_RSA.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)

    init(_ key: Certificate.PublicKey) throws {
        if let rsa = _RSA.Signing.PublicKey(key) {
            self = .rsa(rsa)
        } else if let p256 = P256.Signing.PublicKey(key) {
            self = .p256(p256)
        } else {
            throw AppReceiptVerificationError(.unsupportedAlgorithm, "signer key is neither RSA nor P-256")
        }
    }

    /// Whether `signature` signs `bytes` under this key with `algorithm` and `digest` (PKCS #1 v1.5
    /// for RSA, a DER ECDSA-Sig-Value for P-256). Throws if the algorithm does not fit the key.
    func isValidSignature(_ signature: [UInt8], for bytes: [UInt8], algorithm: ReceiptSignatureAlgorithm, digest: AppReceiptDigestAlgorithm) throws -> Bool {
        switch self {
        case .rsa(let key):
            guard algorithm.isRSA else {
                throw AppReceiptVerificationError(.unsupportedAlgorithm, "ECDSA signature with an RSA signer key")
            }
            let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return switch digest {
            case .sha1: key.isValidSignature(rsaSignature, for: Insecure.SHA1.hash(data: bytes), padding: .insecurePKCS1v1_5)
            case .sha256: key.isValidSignature(rsaSignature, for: SHA256.hash(data: bytes), padding: .insecurePKCS1v1_5)
            }
        case .p256(let key):
            guard algorithm == .ecdsaWithSHA256, digest == .sha256 else {
                throw AppReceiptVerificationError(.unsupportedAlgorithm, "RSA or SHA-1 signature with a P-256 signer key")
            }
            guard let ecdsaSignature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsaSignature, for: SHA256.hash(data: bytes))
        }
    }
}
