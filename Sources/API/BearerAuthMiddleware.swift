import Hummingbird

/// Requires `Authorization: Bearer <token>` with a configured token, then applies that token's
/// rate limit. 401 for a missing or unknown token, 429 (with Retry-After) over the rate.
/// The token is hashed and compared in `TokenDigests`; it is never logged or stored.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokens: TokenDigests
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Problem(.unauthorized, "send Authorization: Bearer <token>")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
              let index = tokens.match(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw Problem(.unauthorized, "the bearer token is not valid")
        }
        if let wait = limiter.acquire(key: index) {
            throw Problem(.rateLimited, "slow down", retryAfter: wait)
        }
        return try await next(request, context)
    }
}
