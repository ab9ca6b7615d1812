extension AppReceiptVerificationError.Reason {
    /// Whether this refusal proves the bytes are not a receipt Apple signed for one of our apps —
    /// so a service may refuse or reject it without asking Apple — or only that this verifier
    /// could not confirm it, where our own knowledge may be the gap and Apple must be asked.
    /// A paid purchase is never rejected for our limitation (DESIGN: Verdicts); the line:
    ///
    /// | proof (reject, no call to Apple) | our gap possible (ask Apple) |
    /// |---|---|
    /// | not base64; not BER; truncated; not signed-data; content not data; no content; no signer | larger or deeper than our limits; bytes after the receipt |
    /// | the signature or its digest does not match (tampered) | a certificate, algorithm, payload or field we cannot parse; no certificates |
    /// | names a trusted root but does not chain to it (look-alike); self-signed signer (Xcode) | a root no trusted root is named as (`unknownRoot`: Apple's next?) |
    /// | chains to Apple's root through a certificate without Apple's WWDR / receipt-signing OID (a developer's own Apple-issued certificate) | a certificate not valid at the creation date (a receipt without one is judged now) |
    /// | Apple signed it for another bundle id (an iOS 6 transaction receipt naming another app's: another app's, or forged) | an unknown receipt type, or an environment not configured |
    /// | bytes that are neither PKCS #7 nor an iOS 6 transaction receipt | an iOS 6 transaction receipt of one of our apps (Apple's verifyReceipt decides) |
    public var provesNotAnAppleReceiptOfOurs: Bool {
        switch self {
        case .notBase64, .malformedEncoding, .truncated, .notSignedData, .unexpectedContentType, .missingContent, .missingSigner,
             .digestMismatch, .badSignature, .chainNotTrusted, .intermediateOIDMissing, .leafOIDMissing, .bundleIdMismatch:
            true
        case .tooLarge, .trailingBytes, .nestingTooDeep, .missingCertificates, .unparsableCertificate, .unsupportedAlgorithm,
             .malformedPayload, .unparsableAttribute, .unknownRoot, .certificateExpired, .certificateNotYetValid, .environmentMismatch,
             .transactionReceipt:
            false
        }
    }
}
