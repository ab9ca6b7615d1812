import SwiftASN1
import X509

/// Apple's rule on top of RFC 5280: exactly leaf → WWDR intermediate → root, each marked with
/// Apple's extension OID. Without it, any certificate the root ever issued (for example a TLS or
/// developer certificate under the same root) could sign App Store data.
struct AppleChainPolicy: VerifierPolicy {
    /// Apple Worldwide Developer Relations intermediate.
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]
    /// App Store receipt signing leaf.
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "chain has \(chain.count) certificates, expected 3")
        }
        guard Self.carries(Self.intermediateOID, chain[1]) else {
            return .failsToMeetPolicy(reason: "intermediate lacks the WWDR OID")
        }
        guard Self.carries(Self.leafOID, chain[0]) else {
            return .failsToMeetPolicy(reason: "leaf lacks the receipt-signing OID")
        }
        return .meetsPolicy
    }

    static func carries(_ oid: ASN1ObjectIdentifier, _ certificate: Certificate) -> Bool {
        certificate.extensions.contains { $0.oid == oid }
    }
}
