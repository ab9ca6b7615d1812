import Crypto
import Hummingbird
import ReceiptQueue

/// Requires `Authorization: Bearer <token>` with a configured token, then applies that token's
/// rate limit. The token is checked first, always: a valid token is never refused for what other
/// clients did, so a guesser behind the same load balancer or NAT cannot lock the real backends
/// out. A missing, unknown or oversized token (over `TokenDigests.maxTokenBytes`: refused before
/// it is hashed) gets 401 with `WWW-Authenticate: Bearer`; once its peer address, or the
/// credential it presented, has failed too often (`AuthFailureLimiter`), 429 with Retry-After
/// instead, so guessing runs at the limit, not at line rate. The token is hashed and compared in
/// `TokenDigests`; it is never logged or stored.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokens: TokenDigests
    let limiter: RateLimiter
    let failures: AuthFailureLimiter
    let metrics: APIMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let presented = Self.presentedToken(request)
        if let token = presented.token, token.utf8.count <= TokenDigests.maxTokenBytes, let index = tokens.match(token) {
            if let wait = limiter.acquire(key: index) {
                throw Problem(.rateLimited, "slow down", retryAfter: wait)
            }
            return try await RequestToken.$index.withValue(index) {
                try await RequestToken.$token.withValue(token) { try await next(request, context) }
            }
        }
        let keys = [
            "peer:" + ((context as? APIRequestContext)?.clientKey ?? "unknown"),
            "credential:" + Self.credentialKey(presented.token),
        ]
        if let wait = keys.compactMap({ failures.blocked($0) }).max() {
            metrics.authFailed(limited: true)
            throw Problem(.rateLimited, "too many failed authentications from this address or with this credential", retryAfter: wait)
        }
        metrics.authFailed(limited: false)
        for key in keys { failures.failed(key) }
        let (detail, error): (String, String?) = switch presented {
        case (nil, false): ("send Authorization: Bearer <token>", nil)
        case (nil, true): ("send Authorization: Bearer <token>", "invalid_request")
        case (.some, _): ("the bearer token is not valid", "invalid_token")
        }
        let challenge = error.map { "Bearer realm=\"receiptq\", error=\"\($0)\"" } ?? "Bearer realm=\"receiptq\""
        throw Problem(.unauthorized, detail, wwwAuthenticate: challenge)
    }

    /// The bearer token, if the request sent one; `malformed` when it sent an Authorization header
    /// that is not a bearer token.
    private static func presentedToken(_ request: Request) -> (token: Substring?, malformed: Bool) {
        guard let header = request.headers[.authorization] else { return (nil, false) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return (nil, true) }
        return (parts[1].drop { $0 == " " }, false)
    }

    /// What failures of one credential are counted under: a short digest of the token (never the
    /// token itself, and never hashed when oversized), or "none".
    private static func credentialKey(_ token: Substring?) -> String {
        guard let token else { return "none" }
        guard token.utf8.count <= TokenDigests.maxTokenBytes else { return "oversized" }
        return SHA256.hash(data: Array(token.utf8)).prefix(12).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
