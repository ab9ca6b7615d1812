import Crypto
import Foundation

/// The signature header ReceiptQueue sent before it adopted Standard Webhooks — deprecated, still
/// sent beside the Standard Webhooks headers (`WebhookDeliveryHeaders`) until the end of the
/// deprecation (docs/quickstart.md, "Webhooks"), so receivers that check it keep working.
///
/// Header `ReceiptQueue-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, where each `v1` is
/// HMAC-SHA256 keyed with the UTF-8 bytes of one of the endpoint's secrets (the whole string, a
/// `whsec_` prefix included) over `"<t>.<body>"` (the exact bytes of the request body). Two
/// secrets may be active while one is rotated out: a delivery then carries both signatures and the
/// receiver accepts either. The timestamp lets a receiver refuse replays (default tolerance: 5
/// minutes):
///
///     expected = hex(hmac_sha256(secret, t + "." + body))
///     ok = any(constant_time_equal(expected, v1) for v1 in header.v1) and abs(now - t) <= 300
public enum WebhookSignature {
    public static let header = "ReceiptQueue-Signature"

    /// The header value for `body`, signed at `timestamp` with every secret.
    public static func sign(body: [UInt8], secrets: [String], timestamp: Int64) -> String {
        let parts = secrets.map { "v1=" + hex(mac(body: body, secret: $0, timestamp: timestamp)) }
        return (["t=\(timestamp)"] + parts).joined(separator: ",")
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformedHeader
        case tooOld
        case noMatchingSignature

        public var description: String {
            switch self {
            case .malformedHeader: "signature header malformed"
            case .tooOld: "signature timestamp outside the tolerance"
            case .noMatchingSignature: "no signature matches a known secret"
            }
        }
    }

    /// Checks a delivery: one `v1` must match one of `secrets`, and `t` be within `tolerance`
    /// of `now`. Comparisons are constant-time.
    public static func verify(header value: String, body: [UInt8], secrets: [String], now: Date = Date(),
                              tolerance: TimeInterval = 300) throws(Failure) {
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for part in value.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw .malformedHeader }
            switch pair[0] {
            case "t": timestamp = Int64(pair[1])
            case "v1": if let bytes = unhex(pair[1]) { signatures.append(bytes) }
            default: continue
            }
        }
        guard let timestamp, !signatures.isEmpty else { throw .malformedHeader }
        guard abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else { throw .tooOld }
        for secret in secrets {
            let expected = mac(body: body, secret: secret, timestamp: timestamp)
            for signature in signatures where signature.count == expected.count {
                if zip(signature, expected).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 { return }
            }
        }
        throw .noMatchingSignature
    }

    static func mac(body: [UInt8], secret: String, timestamp: Int64) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
        hmac.update(data: Array("\(timestamp).".utf8))
        hmac.update(data: body)
        return Array(hmac.finalize())
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func unhex(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0, chars.count <= 256 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: chars.count, by: 2) {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
