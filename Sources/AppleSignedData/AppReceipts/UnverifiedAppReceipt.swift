import X509

/// An app receipt parsed but NOT verified: its container's shape checked and its payload decoded,
/// its signature and certificates not. For reading receipts nobody must trust — Xcode's local
/// StoreKit receipts in development, or a fake App Store decoding what it minted — and for
/// diagnostics. Anything that grants a purchase uses `AppReceiptVerifier`.
public struct UnverifiedAppReceipt: Sendable {
    /// What the receipt claims. Unverified.
    public var contents: AppReceiptContents
    /// The signer's digest algorithm.
    public var digestAlgorithm: AppReceiptDigestAlgorithm
    /// Whether the signer signed attributes (Apple's receipts do not; most CMS tools do).
    public var hasSignedAttributes: Bool
    /// How many certificates the receipt carries.
    public var certificateCount: Int
    private let signedData: CMSSignedData

    /// Parses a base64 receipt (whitespace and line breaks allowed).
    public init(base64 text: some StringProtocol, limits: AppReceiptLimits = AppReceiptLimits()) throws {
        try self.init(der: ReceiptBase64.decode(text, maximumBytes: limits.maximumBytes), limits: limits)
    }

    /// Parses a receipt given as its BER/DER bytes.
    public init(der bytes: [UInt8], limits: AppReceiptLimits = AppReceiptLimits()) throws {
        signedData = try CMSSignedData(der: bytes, limits: limits)
        contents = try ReceiptPayloadDecoder.decode(signedData.content)
        digestAlgorithm = signedData.signer.digestAlgorithm
        hasSignedAttributes = signedData.signer.signedAttributes != nil
        certificateCount = signedData.certificates.count
    }

    /// Whether the signature verifies under `certificate`'s key — no chain, no trust decision: for
    /// a party that knows the one signer it accepts (the fake App Store reading back what it
    /// signed, as Apple's verifyReceipt knows its own keys). Synchronous, unlike chain validation.
    public func isSigned(by certificate: Certificate) -> Bool {
        guard let key = try? ReceiptSignerKey(certificate.publicKey) else { return false }
        return (try? signedData.checkSignature(with: key)) != nil
    }
}
