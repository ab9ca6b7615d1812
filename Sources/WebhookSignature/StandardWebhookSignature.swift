import Crypto
import Foundation

/// How a webhook delivery proves it came from ReceiptQueue: the Standard Webhooks scheme
/// (standardwebhooks.com, version 1.0), so a backend verifies it with any Standard Webhooks
/// library, or in a few lines of its language's standard library.
///
///     webhook-id: <the event's id — the same on every retry of it>
///     webhook-timestamp: <unix seconds of this attempt>
///     webhook-signature: v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>"> [v1,<…> for a second secret]
///
/// The key of each secret is `WebhookSecret.key`: the base64 after `whsec_`, or (for a secret
/// stored before this scheme that is not `whsec_` base64) the secret's own UTF-8 bytes. While a
/// secret is rotated the endpoint has two, and each delivery carries two signatures separated by a
/// space; the receiver accepts either. A receiver refuses timestamps more than 5 minutes from its
/// clock (replays) and deduplicates by `webhook-id`.
public enum StandardWebhookSignature {
    public static let idHeader = "webhook-id"
    public static let timestampHeader = "webhook-timestamp"
    public static let signatureHeader = "webhook-signature"

    /// The `webhook-signature` value: one `v1,<base64>` per secret, space-separated.
    public static func sign(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        secrets.map { "v1," + Data(mac(id: id, timestamp: timestamp, body: body, key: $0.key)).base64EncodedString() }
            .joined(separator: " ")
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case missingHeader(String)
        case malformedTimestamp
        case tooOld
        case tooNew
        case noMatchingSignature

        public var description: String {
            switch self {
            case .missingHeader(let name): "header \(name) missing"
            case .malformedTimestamp: "webhook-timestamp is not whole unix seconds"
            case .tooOld: "webhook-timestamp older than the tolerance"
            case .tooNew: "webhook-timestamp further ahead than the tolerance"
            case .noMatchingSignature: "no v1 signature matches a known secret"
            }
        }
    }

    /// Checks a delivery as a backend should: the three headers present (`headers` looked up
    /// case-insensitively), the timestamp within `tolerance` of `now` both ways, and one `v1`
    /// signature matching one of `secrets`, compared in constant time. Other versions (`v1a`)
    /// and entries that do not decode are skipped, as the specification asks.
    public static func verify(headers: [String: String], body: [UInt8], secrets: [WebhookSecret], now: Date = Date(),
                              tolerance: TimeInterval = 300) throws(Failure) {
        func header(_ name: String) throws(Failure) -> String {
            guard let value = headers.first(where: { $0.key.lowercased() == name })?.value, !value.isEmpty else { throw .missingHeader(name) }
            return value
        }
        let id = try header(idHeader)
        let timestampText = try header(timestampHeader)
        let signature = try header(signatureHeader)
        guard let timestamp = Int64(timestampText) else { throw .malformedTimestamp }
        let skew = now.timeIntervalSince1970 - Double(timestamp)
        guard skew <= tolerance else { throw .tooOld }
        guard skew >= -tolerance else { throw .tooNew }
        let offered: [[UInt8]] = signature.split(separator: " ").compactMap { entry in
            let parts = entry.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == "v1", let bytes = Data(base64Encoded: String(parts[1])) else { return nil }
            return Array(bytes)
        }
        for secret in secrets {
            let expected = mac(id: id, timestamp: timestamp, body: body, key: secret.key)
            for candidate in offered where candidate.count == expected.count {
                if zip(candidate, expected).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 { return }
            }
        }
        throw .noMatchingSignature
    }

    static func mac(id: String, timestamp: Int64, body: [UInt8], key: [UInt8]) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        hmac.update(data: Array("\(id).\(timestamp).".utf8))
        hmac.update(data: body)
        return Array(hmac.finalize())
    }
}
