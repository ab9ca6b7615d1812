/// Bounds on the work one receipt can cause, applied before anything is trusted. A receipt is
/// attacker-controlled until its signature and chain check out, so size and nesting are capped
/// explicitly instead of left to the ASN.1 library's own limits.
public struct AppReceiptLimits: Sendable, Hashable {
    /// The largest receipt accepted, in decoded bytes. Real receipts are a few KiB plus about 1 KiB
    /// per in-app purchase they list. Default: 1 MiB.
    public var maximumBytes: Int
    /// How deeply constructed elements may nest. A receipt needs 10 levels (signer name attributes
    /// inside the signer info); swift-asn1 stops at 50. Default: 32, at most 48.
    public var maximumNestingDepth: Int
    /// How many certificates the receipt may carry. Apple sends three (signer, intermediate, root).
    /// Default: 8.
    public var maximumCertificates: Int

    public init(maximumBytes: Int = 1 << 20, maximumNestingDepth: Int = 32, maximumCertificates: Int = 8) {
        self.maximumBytes = maximumBytes
        self.maximumNestingDepth = maximumNestingDepth
        self.maximumCertificates = maximumCertificates
    }

    /// Whether these limits can work: all positive, nesting within what swift-asn1 itself parses.
    var isValid: Bool {
        maximumBytes > 0 && (2...48).contains(maximumNestingDepth) && maximumCertificates >= 2
    }
}
