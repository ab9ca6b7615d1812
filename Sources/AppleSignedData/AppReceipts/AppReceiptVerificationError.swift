/// Why an app receipt was refused. Each refusal has its own `reason`, so callers and tests can tell
/// garbage from a forgery from a receipt for another app or environment.
///
/// `description` is one terse line, safe for users and logs. `debugDescription` adds a short detail
/// for operators (an offset, a field type, the certificate library's policy message). Neither ever
/// contains receipt bytes or values taken from the receipt.
public struct AppReceiptVerificationError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The text is not base64 (whitespace and line breaks are allowed).
        case notBase64
        /// The receipt is larger than `AppReceiptLimits.maximumBytes`.
        case tooLarge
        /// The bytes are not BER/DER, or an element does not have the shape RFC 5652 gives it.
        case malformedEncoding
        /// The encoding ends before its outermost element does.
        case truncated
        /// Bytes follow the outermost element.
        case trailingBytes
        /// Constructed elements are nested deeper than `AppReceiptLimits.maximumNestingDepth`.
        case nestingTooDeep
        /// The outer ContentInfo is not PKCS #7 signed-data.
        case notSignedData
        /// The signed content (or the content-type signed attribute) is not PKCS #7 data.
        case unexpectedContentType
        /// The signed-data carries no content (a detached signature).
        case missingContent
        /// The signed-data has no signer.
        case missingSigner
        /// The signed-data carries no certificates, or none for the signer or its issuer.
        case missingCertificates
        /// A certificate in the receipt is not DER X.509.
        case unparsableCertificate
        /// A digest or signature algorithm other than SHA-1/SHA-256 with RSA, or SHA-256 with
        /// P-256, or one that does not fit the signer's key.
        case unsupportedAlgorithm
        /// The message-digest signed attribute is missing or does not match the content.
        case digestMismatch
        /// The signature does not verify under the signer certificate's key.
        case badSignature
        /// The content is not a DER SET of receipt attributes (Apple writes the payload in DER even
        /// inside its BER container; the receipts of Apple's library tests and of Xcode do too).
        case malformedPayload
        /// A field this code interprets has a value of the wrong ASN.1 type or form.
        case unparsableAttribute
        /// No path from the signer through one intermediate to a configured root, or the receipt
        /// carries a certificate that is neither on that path nor a configured root.
        case chainNotTrusted
        /// The chain leads to a root none of the configured roots is named as: the intermediate's
        /// issuer is not the subject of a trusted root (and any root the receipt carries is that
        /// stranger). Perhaps a root Apple introduced after this release — so callers ask Apple
        /// rather than call it a forgery (see `provesNotAnAppleReceiptOfOurs`).
        case unknownRoot
        /// The intermediate lacks Apple's WWDR marker (OID 1.2.840.113635.100.6.2.1).
        case intermediateOIDMissing
        /// The signer lacks Apple's receipt-signing marker (OID 1.2.840.113635.100.6.11.1).
        case leafOIDMissing
        /// A certificate of the chain had expired at the receipt's creation date.
        case certificateExpired
        /// A certificate of the chain was not yet valid at the receipt's creation date.
        case certificateNotYetValid
        /// The receipt's bundle id is missing or not one of the configured ones.
        case bundleIdMismatch
        /// The receipt type is missing, unknown, or names an environment not configured.
        case environmentMismatch
        /// An iOS 6 transaction receipt (`TransactionReceipt`) of one of our apps: its signer's
        /// chain cannot be completed here, so Apple's verifyReceipt decides. Never a refusal.
        case transactionReceipt

        /// A short phrase for `description`.
        var summary: String {
            switch self {
            case .notBase64: "not base64"
            case .tooLarge: "too large"
            case .malformedEncoding: "malformed encoding"
            case .truncated: "truncated"
            case .trailingBytes: "trailing bytes"
            case .nestingTooDeep: "nested too deeply"
            case .notSignedData: "not PKCS#7 signed data"
            case .unexpectedContentType: "unexpected content type"
            case .missingContent: "no signed content"
            case .missingSigner: "no signer"
            case .missingCertificates: "signer certificates missing"
            case .unparsableCertificate: "unparsable certificate"
            case .unsupportedAlgorithm: "unsupported algorithm"
            case .digestMismatch: "digest mismatch"
            case .badSignature: "bad signature"
            case .malformedPayload: "malformed payload"
            case .unparsableAttribute: "unparsable receipt field"
            case .chainNotTrusted: "certificate chain not trusted"
            case .unknownRoot: "certificate chain ends in an unknown root"
            case .intermediateOIDMissing: "intermediate certificate is not Apple WWDR"
            case .leafOIDMissing: "signer is not an App Store receipt signing certificate"
            case .certificateExpired: "certificate expired at creation date"
            case .certificateNotYetValid: "certificate not yet valid at creation date"
            case .bundleIdMismatch: "bundle id mismatch"
            case .environmentMismatch: "environment mismatch"
            case .transactionReceipt: "an iOS 6 transaction receipt (Apple verifies it)"
            }
        }
    }

    public var reason: Reason
    /// Operator detail for `debugDescription`; never receipt bytes or values.
    public var detail: String?

    public init(_ reason: Reason, _ detail: String? = nil) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "app receipt refused: \(reason.summary)" }

    /// The reason as a short phrase ("bad signature"), for a job's recorded reason.
    public var reasonSummary: String { reason.summary }

    public var debugDescription: String {
        "AppReceiptVerificationError(\(reason.rawValue)" + (detail.map { ", \($0)" } ?? "") + ")"
    }
}
