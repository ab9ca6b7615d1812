import X509

/// An iOS 6 transaction receipt — `SKPaymentTransaction.transactionReceipt`, deprecated since iOS 7
/// and still sent by old app versions (the founding example of this product): base64 of an
/// old-style property list,
///
///     { "signature" = "<base64 blob>"; "purchase-info" = "<base64 plist>";
///       "environment" = "Sandbox"; "pod" = "100"; "signing-status" = "0"; }
///
/// whose `purchase-info` is itself such a list (`bid`, `transaction-id`, `product-id`, …) and
/// whose `signature` blob is a version byte (2: a 128-byte RSA signature over SHA-1; 3: 256 bytes
/// over SHA-256), the signature, a 4-byte big-endian length and the signing certificate (DER),
/// over the version byte followed by the purchase info's bytes.
///
/// Only the signer's certificate travels with it, not the intermediate that links it to Apple's
/// root, so this release cannot verify one soundly on its own: a receipt of this shape for one
/// of our apps is Apple's to verify (verifyReceipt accepts it), never refused for being "not
/// BER". Reading it here only sorts what is provably not ours (another app's bundle id, bytes
/// that are neither this shape nor PKCS #7).
public struct TransactionReceipt: Sendable, Equatable {
    public struct SignatureBlob: Sendable, Equatable {
        public var version: UInt8
        public var signature: [UInt8]
        public var certificateDER: [UInt8]
    }

    /// `Sandbox`, or nil (production receipts carry no environment).
    public var environment: String?
    public var purchaseInfo: [String: String]
    /// The purchase info as Apple signed it (its base64 decoded).
    public var purchaseInfoBytes: [UInt8]
    public var signature: SignatureBlob

    public var bundleId: String? { purchaseInfo["bid"] }
    public var transactionId: String? { purchaseInfo["transaction-id"] }
    public var originalTransactionId: String? { purchaseInfo["original-transaction-id"] }
    public var productId: String? { purchaseInfo["product-id"] }
    public var quantity: Int? { purchaseInfo["quantity"].flatMap { Int($0) } }
    public var purchaseDateMs: Int64? { purchaseInfo["purchase-date-ms"].flatMap { Int64($0) } }

    /// The bytes the signature covers: the blob's version, then the purchase info.
    public var signedBytes: [UInt8] { [signature.version] + purchaseInfoBytes }

    /// Whether decoded receipt bytes are in this format's outer shape at all (a property list
    /// opens with `{`; a PKCS #7 receipt with a DER SEQUENCE).
    public static func hasItsShape(_ bytes: [UInt8]) -> Bool {
        bytes.first { ![9, 10, 13, 32].contains($0) } == UInt8(ascii: "{")
    }

    /// Reads the decoded bytes of a transaction receipt; nil when they are not one (refused, not
    /// guessed at: a missing purchase-info, a blob of the wrong size, a bad base64).
    public init?(bytes: [UInt8], maximumBytes: Int = 64 * 1024) {
        guard bytes.count <= maximumBytes, let outer = OldStylePlist.dictionary(bytes),
              let infoText = outer["purchase-info"], let blobText = outer["signature"],
              let info = try? ReceiptBase64.decode(infoText, maximumBytes: maximumBytes),
              let purchaseInfo = OldStylePlist.dictionary(info),
              let blob = try? ReceiptBase64.decode(blobText, maximumBytes: maximumBytes),
              let signature = Self.blob(blob) else { return nil }
        self.environment = outer["environment"]
        self.purchaseInfo = purchaseInfo
        self.purchaseInfoBytes = info
        self.signature = signature
    }

    /// Whether `certificate`'s key made this receipt's signature (the fake App Store checks its
    /// own receipts this way, as Apple checks its own; nothing here trusts the blob's certificate).
    public func isSigned(by certificate: Certificate) -> Bool {
        guard let key = try? ReceiptSignerKey(certificate.publicKey) else { return false }
        let (algorithm, digest): (ReceiptSignatureAlgorithm, AppReceiptDigestAlgorithm) = signature.version == 2
            ? (.rsaWithSHA1, .sha1) : (.rsaWithSHA256, .sha256)
        return (try? key.isValidSignature(signature.signature, for: signedBytes, algorithm: algorithm, digest: digest)) == true
    }

    /// The blob as its version says: 2 → 128 signature bytes, 3 → 256; then the certificate,
    /// whose length must account for every remaining byte.
    private static func blob(_ bytes: [UInt8]) -> SignatureBlob? {
        guard let version = bytes.first else { return nil }
        let signatureLength: Int
        switch version {
        case 2: signatureLength = 128
        case 3: signatureLength = 256
        default: return nil
        }
        let lengthStart = 1 + signatureLength
        guard bytes.count >= lengthStart + 4 else { return nil }
        let length = bytes[lengthStart..<lengthStart + 4].reduce(0) { $0 << 8 | Int($1) }
        guard length > 0, bytes.count == lengthStart + 4 + length else { return nil }
        return SignatureBlob(version: version, signature: Array(bytes[1..<lengthStart]),
                             certificateDER: Array(bytes[(lengthStart + 4)...]))
    }
}
