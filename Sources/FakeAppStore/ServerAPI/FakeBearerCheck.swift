import Crypto
import Foundation

/// Whether the fake accepts a request's `Authorization: Bearer <JWT>`, checked as Apple documents
/// its App Store Server API tokens. Pure: keys, app and time are arguments.
///
/// Refused (each with its own reason, for tests and the fake's log): no bearer token; not three
/// base64url segments; header `alg` not ES256; a `kid` naming no configured key; a signature no
/// configured key verifies; `aud` not `appstoreconnect-v1`; `bid` not the app; no `iss`, or not
/// the configured issuer; `exp` missing or passed; `exp` more than an hour (plus the allowed skew)
/// ahead; and, when the token has an `iat` (Apple's own libraries leave it out, and Apple accepts
/// that), `iat` in the future beyond the allowed skew or a lifetime (`exp − iat`) over an hour.
public enum FakeBearerCheck {
    public enum Verdict: Sendable, Equatable {
        case accepted
        case refused(String)
    }

    public static let audience = "appstoreconnect-v1"

    public static func check(authorization: String?, keys: [FakeAPIKey], bundleId: String, issuerId: String?,
                             now: Date, allowedSkew: TimeInterval = 60) -> Verdict {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else { return .refused("no bearer token") }
        let token = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = FakeBase64URL.decode(parts[0]), let claimBytes = FakeBase64URL.decode(parts[1]),
              let signatureBytes = FakeBase64URL.decode(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: Data(claimBytes))) as? [String: Any]
        else { return .refused("malformed token") }
        guard header["alg"] as? String == "ES256" else { return .refused("alg is not ES256") }
        let kid = header["kid"] as? String
        let candidates = keys.filter { $0.keyId == nil || kid == nil || $0.keyId == kid }
        guard !candidates.isEmpty else { return .refused("unknown key id") }
        guard signatureBytes.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) else {
            return .refused("bad signature")
        }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard candidates.contains(where: { $0.publicKey.isValidSignature(signature, for: signingInput) }) else {
            return .refused("bad signature")
        }
        guard claims["aud"] as? String == audience else { return .refused("aud is not \(audience)") }
        guard claims["bid"] as? String == bundleId else { return .refused("bid is not \(bundleId)") }
        guard let issuer = claims["iss"] as? String, !issuer.isEmpty else { return .refused("iss missing") }
        if let issuerId, issuer != issuerId { return .refused("iss is not the configured issuer") }
        guard let exp = number(claims["exp"]) else { return .refused("exp missing") }
        let nowSeconds = now.timeIntervalSince1970
        guard exp > nowSeconds else { return .refused("expired") }
        guard exp <= nowSeconds + 3_600 + allowedSkew else { return .refused("expires more than an hour ahead") }
        if claims["iat"] != nil {
            guard let iat = number(claims["iat"]) else { return .refused("iat is not a number") }
            guard iat <= nowSeconds + allowedSkew else { return .refused("issued in the future") }
            guard exp - iat <= 3_600 else { return .refused("lifetime over an hour") }
        }
        return .accepted
    }

    private static func number(_ value: Any?) -> Double? {
        (value as? NSNumber).map(\.doubleValue)
    }
}

/// Base64url without padding, decoded with Foundation (the fake keeps its own copy of everything
/// the client side also does, so the two cannot share a bug).
enum FakeBase64URL {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard !text.contains("=") else { return nil }   // JWS segments carry no padding
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
