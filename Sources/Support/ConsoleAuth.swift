import Crypto
import Foundation
import Hummingbird

/// The console's logins and CSRF protection. Logins: HTTP Basic, user = the operator's name,
/// password = their support token (the browser keeps it for the session; the console never
/// sets a cookie). Every form carries `csrf`, an HMAC of the operator's name under a key made at
/// start-up: a page of another site cannot read it, so it cannot forge an action, though the
/// browser would send the Basic credentials along. An `Origin` that is not this host is refused too.
struct ConsoleAuth: Sendable {
    let credentials: SupportCredentials
    /// The CSRF key, made at start-up (a restart invalidates open forms: reload the page).
    let key: [UInt8] = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }

    static let challenge: HTTPFields = [.wwwAuthenticate: "Basic realm=\"receiptq console\", charset=\"UTF-8\""]

    func login(_ request: Request) -> SupportCredentials.Operator? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", parts[1].utf8.count <= 1024,
              let decoded = Data(base64Encoded: String(parts[1])).map({ String(decoding: $0, as: UTF8.self) }),
              let colon = decoded.firstIndex(of: ":") else { return nil }
        return credentials.authenticate(name: decoded[..<colon], token: decoded[decoded.index(after: colon)...])
    }

    func csrfToken(for who: SupportCredentials.Operator) -> String {
        HMAC<SHA256>.authenticationCode(for: Array(who.name.utf8), using: SymmetricKey(data: key)).map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Whether a form post is this operator's own, from one of this console's pages.
    func isGenuine(_ request: Request, form: [(String, String)], who: SupportCredentials.Operator) -> Bool {
        if let origin = request.headers[.origin], let host = request.head.authority {
            guard origin == "http://" + host || origin == "https://" + host else { return false }
        }
        guard let presented = form.first(where: { $0.0 == "csrf" })?.1 else { return false }
        let expected = csrfToken(for: who)
        guard presented.utf8.count == expected.utf8.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(presented.utf8, expected.utf8) { difference |= a ^ b }
        return difference == 0
    }
}
