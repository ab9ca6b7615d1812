import Hummingbird

/// Requires `Authorization: Bearer <token>` with a configured token, then applies that token's
/// rate limit. 401 with `WWW-Authenticate: Bearer` for a missing, unknown or oversized token
/// (over `TokenDigests.maxTokenBytes`: refused before it is hashed); 429 with Retry-After over
/// the rate, and for every request from an address that failed too often (`AuthFailureLimiter`).
/// The token is hashed and compared in `TokenDigests`; it is never logged or stored.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokens: TokenDigests
    let limiter: RateLimiter
    let failures: AuthFailureLimiter
    let metrics: APIMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = (context as? APIRequestContext)?.clientKey ?? "unknown"
        if let wait = failures.blocked(client) {
            metrics.authFailed(limited: true)
            throw Problem(.rateLimited, "too many failed authentications from this address", retryAfter: wait)
        }
        guard let header = request.headers[.authorization] else {
            throw refuse(client, "send Authorization: Bearer <token>", error: nil)
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw refuse(client, "send Authorization: Bearer <token>", error: "invalid_request")
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard token.utf8.count <= TokenDigests.maxTokenBytes, let index = tokens.match(token) else {
            throw refuse(client, "the bearer token is not valid", error: "invalid_token")
        }
        if let wait = limiter.acquire(key: index) {
            throw Problem(.rateLimited, "slow down", retryAfter: wait)
        }
        return try await RequestToken.$index.withValue(index) { try await next(request, context) }
    }

    /// A 401 with the challenge (RFC 6750), and why when a token was sent; counted against the
    /// client's address (`limit` failures are answered 401, the requests after them 429).
    private func refuse(_ client: String, _ detail: String, error: String?) -> Problem {
        metrics.authFailed(limited: false)
        failures.failed(client)
        let challenge = error.map { "Bearer realm=\"receiptq\", error=\"\($0)\"" } ?? "Bearer realm=\"receiptq\""
        return Problem(.unauthorized, detail, wwwAuthenticate: challenge)
    }
}
