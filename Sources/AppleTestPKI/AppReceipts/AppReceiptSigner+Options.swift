import AppleSignedData

extension AppReceiptSigner {
    /// How a receipt is signed and laid out. The defaults copy Apple's current receipts.
    public struct Options: Sendable {
        /// Default: `.sha256` (Apple's since January 2025; `.sha1` before).
        public var digest: AppReceiptDigestAlgorithm = .sha256
        /// Sign through content-type and message-digest attributes, as most CMS tools do.
        /// Default: `false` (Apple signs the content directly).
        public var signedAttributes = false
        /// Default: `.indefiniteLength`, Apple's BER shape.
        public var encoding: Encoding = .indefiniteLength
        /// Wrap the payload in one more OCTET STRING, as Xcode's receipts do. Default: `false`.
        public var xcodeDoubleWrap = false
        /// Name the hash in the signature algorithm (`sha256WithRSAEncryption`) instead of Apple's
        /// bare `rsaEncryption`. Default: `false`. EC signers always name `ecdsa-with-SHA256`.
        public var namedSignatureAlgorithm = false
        /// The largest segment of the content OCTET STRING in the indefinite-length encoding.
        /// Default: 1,000 bytes.
        public var segmentSize = 1_000

        public init() {}
    }

    public enum Encoding: Sendable, Hashable {
        /// Definite lengths throughout, the content one OCTET STRING.
        case der
        /// Indefinite lengths for the containers and the content, the content in segments, as
        /// Apple's receipts arrive (X.690 BER).
        case indefiniteLength
    }
}
