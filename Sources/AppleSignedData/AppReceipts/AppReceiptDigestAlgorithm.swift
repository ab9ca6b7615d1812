import Foundation
import Crypto
import SwiftASN1

/// The digest a receipt's signer uses. Apple signed receipts with SHA-1 until its receipt signing
/// intermediate moved to SHA-256 (sandbox from June 2023, all receipts from 24 January 2025, per
/// TN3138); both are accepted, nothing else.
public enum AppReceiptDigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    case sha1 = "SHA-1"
    case sha256 = "SHA-256"

    init?(_ oid: ASN1ObjectIdentifier) {
        switch oid {
        case CMSObjectIdentifiers.sha1: self = .sha1
        case CMSObjectIdentifiers.sha256: self = .sha256
        default: return nil
        }
    }

    /// The algorithm's object identifier, as a CMS AlgorithmIdentifier names it.
    public var objectIdentifier: ASN1ObjectIdentifier {
        switch self {
        case .sha1: CMSObjectIdentifiers.sha1
        case .sha256: CMSObjectIdentifiers.sha256
        }
    }

    /// The digest of `bytes`.
    public func digest(_ bytes: some DataProtocol) -> [UInt8] {
        switch self {
        case .sha1: Array(Insecure.SHA1.hash(data: bytes))
        case .sha256: Array(SHA256.hash(data: bytes))
        }
    }
}
