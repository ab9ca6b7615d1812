import Crypto
import Foundation

/// The Standard Webhooks check: what your endpoint does with every POST (in Vapor or Hummingbird,
/// call it from the route with the request's headers and raw body). `body` must be the raw bytes
/// received, before any JSON decoding. Throws if the delivery is forged or replayed.
func verifyWebhook(secret: String, headers: [String: String], body: Data, tolerance: TimeInterval = 300, now: Date = Date()) throws {
    func header(_ name: String) throws -> String {
        guard let value = headers.first(where: { $0.key.lowercased() == name })?.value, !value.isEmpty else {
            throw WebhookRefused("missing \(name)")
        }
        return value
    }
    let id = try header("webhook-id"), timestamp = try header("webhook-timestamp"), signatures = try header("webhook-signature")
    guard let seconds = TimeInterval(timestamp), abs(now.timeIntervalSince1970 - seconds) <= tolerance else {
        throw WebhookRefused("timestamp outside the tolerance (a replay?)")
    }
    let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst("whsec_".count)) : secret
    guard let key = Data(base64Encoded: encoded) else { throw WebhookRefused("the secret is not whsec_ followed by base64") }
    let signed = Data("\(id).\(timestamp).".utf8) + body
    // Space-separated: two signatures while the endpoint's secret is being rotated.
    for entry in signatures.split(separator: " ") where entry.hasPrefix("v1,") {
        guard let offered = Data(base64Encoded: String(entry.dropFirst(3))) else { continue }
        // Compared in constant time.
        if HMAC<SHA256>.isValidAuthenticationCode(offered, authenticating: signed, using: SymmetricKey(data: key)) { return }
    }
    throw WebhookRefused("no signature matches")
}

struct WebhookRefused: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
