/// Why a signed payload was refused. Each refusal has its own `reason`, so callers (and tests) can
/// tell a forgery from a misconfiguration from a payload for another app.
///
/// `description` is one terse line, safe for users and logs: it never contains the payload or a
/// certificate. `debugDescription` adds a short detail (a claim value, an algorithm name, the
/// certificate library's policy message) for operators.
public struct SignedDataVerificationError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Not three base64url segments, or a header that is not a JSON object.
        case malformedJWS
        /// Header `alg` is not `ES256` (`none`, `HS256`, `RS256`, … are all refused).
        case unsupportedAlgorithm
        /// Header `x5c` does not hold exactly three certificates (leaf, intermediate, root).
        case wrongChainLength
        /// An `x5c` entry is not base64 DER of an X.509 certificate, or the leaf key is not P-256.
        case unparsableCertificate
        /// No path from the leaf through the intermediate to a configured root, or the path breaks
        /// an RFC 5280 rule other than validity dates. A root sent in `x5c` is never trusted.
        case chainNotTrusted
        /// The intermediate lacks Apple's WWDR marker (OID 1.2.840.113635.100.6.2.1).
        case intermediateOIDMissing
        /// The leaf lacks Apple's receipt-signing marker (OID 1.2.840.113635.100.6.11.1).
        case leafOIDMissing
        /// A certificate in the chain had expired at the payload's `signedDate`.
        case certificateExpired
        /// A certificate in the chain was not yet valid at the payload's `signedDate`.
        case certificateNotYetValid
        /// With revocation checking on: a certificate is revoked, or its OCSP status could not be
        /// established (hard fail).
        case revocationCheckFailed
        /// The ES256 signature does not match `header.payload` under the leaf's key.
        case badSignature
        /// The payload's bundle id is missing or not one of the configured ones.
        case bundleIdMismatch
        /// The payload's environment is missing or not the configured one.
        case environmentMismatch
        /// In production, the payload's app Apple id is missing or not the configured one.
        case appAppleIdMismatch
        /// The payload segment is not base64url JSON of the requested payload type.
        case payloadNotDecodable

        /// A short phrase for `description`.
        var summary: String {
            switch self {
            case .malformedJWS: "malformed JWS"
            case .unsupportedAlgorithm: "unsupported signature algorithm"
            case .wrongChainLength: "certificate chain is not three certificates"
            case .unparsableCertificate: "unparsable certificate"
            case .chainNotTrusted: "certificate chain not trusted"
            case .intermediateOIDMissing: "intermediate certificate is not Apple WWDR"
            case .leafOIDMissing: "leaf certificate is not an App Store signing certificate"
            case .certificateExpired: "certificate expired at signedDate"
            case .certificateNotYetValid: "certificate not yet valid at signedDate"
            case .revocationCheckFailed: "certificate revoked or revocation status unknown"
            case .badSignature: "bad signature"
            case .bundleIdMismatch: "bundle id mismatch"
            case .environmentMismatch: "environment mismatch"
            case .appAppleIdMismatch: "app Apple id mismatch"
            case .payloadNotDecodable: "payload not decodable"
            }
        }
    }

    public var reason: Reason
    /// Operator detail for `debugDescription`; never the payload or a certificate.
    public var detail: String?

    public init(_ reason: Reason, _ detail: String? = nil) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "signed data refused: \(reason.summary)" }

    public var debugDescription: String {
        "SignedDataVerificationError(\(reason.rawValue)" + (detail.map { ", \($0)" } ?? "") + ")"
    }
}
