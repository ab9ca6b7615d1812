import SwiftASN1

/// The signature algorithm a receipt's signer names, checked against its digest algorithm and key.
enum ReceiptSignatureAlgorithm: Sendable, Hashable {
    /// `rsaEncryption`: PKCS #1 v1.5 with the signer's digest algorithm (what Apple sends).
    case rsa
    case rsaWithSHA1
    case rsaWithSHA256
    case ecdsaWithSHA256

    init?(_ oid: ASN1ObjectIdentifier) {
        switch oid {
        case CMSObjectIdentifiers.rsaEncryption: self = .rsa
        case CMSObjectIdentifiers.sha1WithRSAEncryption: self = .rsaWithSHA1
        case CMSObjectIdentifiers.sha256WithRSAEncryption: self = .rsaWithSHA256
        case CMSObjectIdentifiers.ecdsaWithSHA256: self = .ecdsaWithSHA256
        default: return nil
        }
    }

    /// Whether this algorithm can be used with `digest` (a named hash must be the signer's digest).
    func fits(_ digest: AppReceiptDigestAlgorithm) -> Bool {
        switch self {
        case .rsa: true
        case .rsaWithSHA1: digest == .sha1
        case .rsaWithSHA256, .ecdsaWithSHA256: digest == .sha256
        }
    }

    var isRSA: Bool { self != .ecdsaWithSHA256 }
}
