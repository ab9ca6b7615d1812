import Foundation

/// The HMAC key of one endpoint secret, for the Standard Webhooks signature (`webhook-signature`).
///
/// Standard Webhooks serializes a secret as `whsec_` followed by the key in base64; the key is the
/// decoded bytes. A secret stored before ReceiptQueue signed that way may be any string of 16 to
/// 256 characters (`receiptq webhooks add` took it as it came, and signed the deprecated
/// `ReceiptQueue-Signature` with its UTF-8 bytes). So:
///
/// - `whsec_` + standard base64 (alphabet `A-Za-z0-9+/`, padding optional) that decodes to at least
///   one byte: the key is the decoded bytes (`isStandard`), exactly what every Standard Webhooks
///   library derives from the same string;
/// - anything else (no prefix, `_` or `-` after it, bad padding): the key is the string's own UTF-8
///   bytes, whole, prefix included. A receiver hands those bytes to its library as a raw key
///   (Python `Webhook(secret.encode())`, JavaScript `new Webhook(secret, {format: "raw"})`, Go
///   `NewWebhookRaw([]byte(secret))`), or rotates to a `whsec_` secret.
///
/// The deprecated `ReceiptQueue-Signature` always uses the string's UTF-8 bytes, as it always did.
/// `description` never shows the secret.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    public static let prefix = "whsec_"
    /// Standard Webhooks asks for at least 24 random bytes (192 bits).
    public static let recommendedKeyBytes = 24

    /// The HMAC-SHA256 key of the Standard Webhooks signature.
    public let key: [UInt8]
    /// Whether the secret is `whsec_` + base64 (its key is the decoded bytes).
    public let isStandard: Bool
    /// The string as stored, the key of the deprecated `ReceiptQueue-Signature`.
    let text: String

    public init(_ text: String) {
        self.text = text
        if let decoded = Self.decodeStandard(text) {
            key = decoded
            isStandard = true
        } else {
            key = Array(text.utf8)
            isStandard = false
        }
    }

    /// Whether it is what Standard Webhooks recommends: `whsec_` + base64 of at least 24 bytes.
    public var isRecommended: Bool { isStandard && key.count >= Self.recommendedKeyBytes }

    public var description: String {
        "WebhookSecret(\(isStandard ? "whsec_ base64, \(key.count) bytes" : "raw string, \(key.count) bytes"))"
    }

    /// A new secret as Standard Webhooks serializes one: `whsec_` + base64 of `bytes` random bytes.
    public static func generate(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<max(bytes, recommendedKeyBytes)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Data(key).base64EncodedString()
    }

    static func decodeStandard(_ text: String) -> [UInt8]? {
        guard text.hasPrefix(prefix) else { return nil }
        var encoded = Array(text.utf8.dropFirst(prefix.utf8.count))
        // Trailing padding, at most two, then only the base64 alphabet.
        var padding = 0
        while encoded.last == UInt8(ascii: "=") && padding < 2 {
            encoded.removeLast()
            padding += 1
        }
        guard !encoded.isEmpty, encoded.count % 4 != 1, encoded.allSatisfy(Self.isBase64Character) else { return nil }
        if padding > 0 && (encoded.count + padding) % 4 != 0 { return nil }
        encoded += Array(repeating: UInt8(ascii: "="), count: (4 - encoded.count % 4) % 4)
        guard let data = Data(base64Encoded: Data(encoded)), !data.isEmpty else { return nil }
        return Array(data)
    }

    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
